import { existsSync } from "node:fs";
import { WorkspaceSnapshots } from "../sessions/index.js";

/** A snapshot as Gyre writes them: the hash of a git tree (SHA-1 or SHA-256). */
const SNAPSHOT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * What a step changed in the files: the git diff between two snapshots of `worktree` (the
 * `snapshots` option's parts), from Gyre's snapshot repository for it on this machine.
 * Undefined when the snapshots are not hashes, or there is no such repository here (nothing is
 * created to look).
 */
export async function stepDiff(worktree: string, from: string, to: string): Promise<string | undefined> {
  if (!SNAPSHOT.test(from) || !SNAPSHOT.test(to)) return undefined;
  const snapshots = new WorkspaceSnapshots({ worktree });
  if (!existsSync(snapshots.gitDir)) return undefined;
  try {
    return await snapshots.diff(from, to);
  } catch {
    return undefined;
  }
}
