import { renameSync } from "node:fs";
import path from "node:path";
import type { SandboxViolation } from "../tools/builtin/index.js";
import { unsafeRepositoryReason } from "./repository-safety.js";
import { lstatOrNone, type RepositorySpot, WorkspaceWalk } from "./workspace-walk.js";

/** A repository a command created that was found harmless, with what its check read. */
interface Adopted {
  gitDir: string;
  stamp: string;
}

/**
 * Repositories sandboxed commands create anywhere in the workspace (a `.git` folder, file or
 * link; a folder shaped like a bare repository, which git 2.39 uses when someone works in it).
 * Those present when the run starts are the user's and left alone. A new one is kept only when
 * it is a `.git` folder or a bare repository that runs nothing (repository-safety.ts: what
 * `git init` and `git clone` make), and checked again whenever its config, hooks or folder
 * change; any other — a `.git` file or link (it names a folder whose config git would run), a
 * config naming a program, a hook — is set aside: a `.git` renamed to `.git-sandboxed`, a bare
 * one's `HEAD` to `HEAD.sandboxed` (git no longer takes the folder for a repository). Nothing is
 * deleted; each is reported.
 *
 * Detected after the command, not prevented by a mount: a mount can cover only paths known
 * before the command, it would leave an empty `.git` on the host, and it would make an honest
 * `git init` fail. The walk is bounded (workspace-walk.ts); past the bound nothing is checked.
 */
export class PlantedRepositoryGuard {
  readonly #walk: WorkspaceWalk;
  /** Identities (device, inode of the `.git` or of `HEAD`) of the repositories present at the start. */
  readonly #present = new Set<string>();
  readonly #adopted = new Map<string, Adopted>();
  readonly #advice: string;
  /** Set when the first walk stopped at its bound: then what it did not reach and is older than the run is the user's too. */
  readonly #startedNs: bigint | undefined;

  constructor(roots: readonly string[], allowsUnsandboxed: boolean) {
    this.#walk = new WorkspaceWalk(roots);
    const { spots, truncated } = this.#walk.spots();
    for (const spot of spots) {
      const identity = identityOf(spot);
      if (identity) this.#present.add(identity);
    }
    this.#startedNs = truncated ? BigInt(Date.now()) * 1_000_000n : undefined;
    this.#advice = allowsUnsandboxed
      ? " Run the command with dangerouslyDisableSandbox if the repository is wanted as it is."
      : " Ask the user to set it up if the repository is wanted as it is.";
  }

  /** Set aside the harmful repositories created since the run started; what was done, in words. */
  check(): SandboxViolation[] {
    const violations: SandboxViolation[] = [];
    const found = new Set<string>();
    for (const spot of this.#walk.spots().spots) {
      const identity = identityOf(spot);
      if (!identity || this.#present.has(identity) || this.#olderThanRun(spot)) continue;
      found.add(identity);
      const gitDir = spot.kind === "bare" ? spot.dir : path.join(spot.dir, ".git");
      const entry = lstatOrNone(gitDir);
      const reason = entry?.isDirectory() ? this.#reasonIfChanged(identity, gitDir) : "it is a file or a link";
      if (reason === undefined) continue;
      this.#adopted.delete(identity);
      violations.push(this.#setAside(spot, reason));
    }
    for (const identity of this.#adopted.keys()) if (!found.has(identity)) this.#adopted.delete(identity);
    return violations;
  }

  /** A repository the first walk did not reach, made before the run started (its entry's birth time). */
  #olderThanRun(spot: RepositorySpot): boolean {
    if (this.#startedNs === undefined) return false;
    const born = lstatOrNone(path.join(spot.dir, spot.kind === "bare" ? "HEAD" : ".git"))?.birthtimeNs;
    return born !== undefined && born > 0n && born < this.#startedNs;
  }

  /** The safety check's verdict, read again only when what it depends on changed since it was kept. */
  #reasonIfChanged(identity: string, gitDir: string): string | undefined {
    const stamp = stampOf(gitDir);
    if (this.#adopted.get(identity)?.stamp === stamp) return undefined;
    const reason = unsafeRepositoryReason(gitDir);
    // Stamped before the check: a change during it shows as a new stamp next time.
    if (reason === undefined) this.#adopted.set(identity, { gitDir, stamp });
    return reason;
  }

  #setAside(spot: RepositorySpot, reason: string): SandboxViolation {
    const from = path.join(spot.dir, spot.kind === "bare" ? "HEAD" : ".git");
    const base = spot.kind === "bare" ? "HEAD.sandboxed" : ".git-sandboxed";
    const what =
      spot.kind === "bare"
        ? `${spot.dir}, a bare repository created by a sandboxed command,`
        : `${from}, a repository created by a sandboxed command,`;
    let outcome: string;
    try {
      const name = freeName(spot.dir, base);
      renameSync(from, path.join(spot.dir, name));
      outcome = `was set aside (${path.basename(from)} renamed to ${name})`;
    } catch (error) {
      outcome = `could not be set aside (${(error as NodeJS.ErrnoException).code ?? String(error)}); do not run git there before removing it`;
    }
    return {
      kind: "write",
      target: from,
      message: `${what} ${outcome}: ${reason}, which the host's git could run.${this.#advice}`,
    };
  }
}

/**
 * A repository's identity: where it is and its `.git` entry's inode (a new `.git` in the same
 * folder, or one moved there, is a new repository), or for a bare one its `HEAD`'s and its
 * folder's. Undefined when it is gone, or for what is already set aside.
 */
function identityOf(spot: RepositorySpot): string | undefined {
  if (spot.kind === "bare") {
    const head = lstatOrNone(path.join(spot.dir, "HEAD"));
    const dir = lstatOrNone(spot.dir);
    return head && dir && `bare:${spot.dir}\0${dir.dev}:${dir.ino}:${head.ino}`;
  }
  const git = lstatOrNone(path.join(spot.dir, ".git"));
  return git && `git:${spot.dir}\0${git.dev}:${git.ino}`;
}

/**
 * What the safety check of a repository folder read: the folder (an entry added, removed or
 * renamed in it), its config, hooks and the folders of sub-repositories.
 */
function stampOf(gitDir: string): string {
  return ["", "config", "hooks", "modules", "worktrees"]
    .map((name) => {
      const stats = lstatOrNone(path.join(gitDir, name));
      return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : "-";
    })
    .join("/");
}

/** `base`, or `base-2`, … when taken. */
function freeName(dir: string, base: string): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (!lstatOrNone(path.join(dir, name))) return name;
  }
}
