import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { GyreError } from "../errors/index.js";
import { gyreDataFolder } from "./default-location.js";

// Snapshots of a workspace's files, as OpenCode takes them: `git add` of the work tree into a
// repository of Gyre's own (its object store, in Gyre's data folder, never the user's `.git`),
// and the tree it writes is the snapshot — a content hash from which what a step changed, and
// the files as they were, come back. Files the work tree's .gitignore leaves out are not in it.

/** At most this much output is read from one git command (a diff of a huge step). */
const MAX_GIT_OUTPUT = 64 * 1024 * 1024;

export interface WorkspaceSnapshotsOptions {
  /** The folder whose files are snapshotted (the run's working directory). */
  worktree: string;
  /** Gyre's repository for it; default `<data folder>/snapshots/<hash of the worktree's path>`. */
  gitDir?: string;
}

/** A file a step changed, as git says it: added, modified or deleted. */
export interface SnapshotChange {
  path: string;
  status: "added" | "modified" | "deleted";
}

export class WorkspaceSnapshots {
  readonly worktree: string;
  readonly gitDir: string;
  #ready: Promise<void> | undefined;

  constructor(options: WorkspaceSnapshotsOptions) {
    this.worktree = resolve(options.worktree);
    this.gitDir =
      options.gitDir ??
      join(gyreDataFolder(), "snapshots", createHash("sha256").update(this.worktree).digest("hex").slice(0, 32));
  }

  /** The snapshot of the work tree as it is now: the hash of the tree git wrote. */
  async track(): Promise<string> {
    await this.#init();
    await this.#git(["add", "--all", "."]);
    return (await this.#git(["write-tree"])).trim();
  }

  /** The files that differ between two snapshots. */
  async changes(from: string, to: string): Promise<SnapshotChange[]> {
    await this.#init();
    const out = await this.#git(["diff-tree", "-r", "--no-renames", "--name-status", "-z", from, to]);
    const fields = out.split("\0").filter((field) => field !== "");
    const changes: SnapshotChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const letter = fields[i];
      const status = letter === "A" ? "added" : letter === "D" ? "deleted" : "modified";
      changes.push({ path: fields[i + 1] ?? "", status });
    }
    return changes;
  }

  /** A unified diff from one snapshot to another, as `git diff` prints it. */
  async diff(from: string, to: string): Promise<string> {
    await this.#init();
    return this.#git(["diff", "--no-color", "--no-renames", "--no-ext-diff", from, to]);
  }

  /**
   * Puts the work tree's files back as `snapshot` had them: every file that differs is written
   * from it, and files it did not have are removed. Files the snapshot never tracked (ignored
   * ones) are left alone.
   */
  async restore(snapshot: string): Promise<SnapshotChange[]> {
    const now = await this.track();
    const changes = await this.changes(snapshot, now);
    const back = changes.filter((change) => change.status !== "added").map((change) => change.path);
    const added = changes.filter((change) => change.status === "added").map((change) => change.path);
    if (back.length > 0) await this.#git(["checkout", snapshot, "--", ...back]);
    if (added.length > 0) await this.#git(["rm", "--quiet", "--cached", "--force", "--", ...added]);
    for (const path of added) await rm(join(this.worktree, path), { force: true });
    return changes;
  }

  #init(): Promise<void> {
    this.#ready ??= (async () => {
      await mkdir(this.gitDir, { recursive: true });
      await this.#git(["init", "--quiet"]);
      // The user's line endings and file modes as they are; no hooks or signing of the user's config.
      await this.#git(["config", "core.autocrlf", "false"]);
      await this.#git(["config", "core.fileMode", "true"]);
    })();
    return this.#ready;
  }

  #git(args: string[]): Promise<string> {
    return new Promise((resolvePromise, reject) => {
      execFile(
        "git",
        [`--git-dir=${this.gitDir}`, `--work-tree=${this.worktree}`, "-c", "core.hooksPath=/dev/null", ...args],
        { cwd: this.worktree, maxBuffer: MAX_GIT_OUTPUT, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } },
        (error, stdout, stderr) => {
          if (!error) return resolvePromise(stdout);
          const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
          reject(
            new GyreError(
              "snapshot_error",
              missing
                ? "Workspace snapshots need git, which is not installed."
                : `git ${args[0]} failed for the workspace snapshot: ${stderr.trim() || error.message}`,
              { cause: error },
            ),
          );
        },
      );
    });
  }
}
