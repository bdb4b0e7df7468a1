import { execFile, spawnSync } from "node:child_process";
import { constants, lstatSync, readFileSync, realpathSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import type { SandboxViolation } from "../tools/builtin/index.js";

/**
 * Hardened for a repository whose index a sandboxed command wrote: no fsmonitor, no hooks, no
 * pager; `safe.directory` so that a workspace owned by another user is still listed (ls-files
 * runs nothing its config could name once those are off).
 */
const LS_FILES = [
  "--no-pager",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "safe.directory=*",
  "ls-files",
  "--stage",
  "-z",
];
/** A big repository's index lists tens of megabytes. */
const MAX_LISTING_BYTES = 1 << 30;
const LISTING_TIMEOUT_MS = 60_000;
const GITLINK = Buffer.from("160000 ");

/** One repository of the workspace: where its index is, and its gitlinks as last read. */
interface Repository {
  dir: string;
  index: string;
  /** The index's identity (inode, size, times) when `gitlinks` was read; undefined: not read yet. */
  stamp: string | undefined;
  /** Checkout paths of the index's gitlinks (mode 160000), as bytes: git's names need not be UTF-8. */
  gitlinks: Buffer[];
}

/**
 * New repositories at the submodule paths of the workspace's repositories. A gitlink (mode 160000
 * in an index) whose checkout has a `.git` makes the host's git enter it (`git status`, `git diff`)
 * and run its config: `core.fsmonitor`, hooks. A sandboxed command can make one (`git init
 * vendor/new && git add vendor/new`, or a `.git` in an uninitialised submodule's empty folder); the
 * repositories found at run start are protected by mounts (nested-repositories.ts), others not.
 * So after each command a `.git` at a gitlink path that is neither one of those nor the very one
 * present when the run started is renamed to `.git-sandboxed` (nothing deleted) and reported.
 *
 * Cheap per command: the gitlinks are listed once at start, again only when an index changed
 * (its inode, size or times); the rest is a stat per index and per gitlink.
 */
export class GitlinkGuard {
  readonly #repositories: Repository[];
  /** Repositories whose `.git` the mounts protect: the workspace directories and those nested in them. */
  readonly #protected: Set<string>;
  /** The `.git` at a gitlink path when the run started (device and inode), by checkout path. */
  readonly #present = new Map<string, string>();
  readonly #advice: string;

  private constructor(
    repositories: Repository[],
    protectedRepositories: readonly string[],
    allowsUnsandboxed: boolean,
  ) {
    this.#repositories = repositories;
    this.#protected = new Set(protectedRepositories.map((dir) => key(Buffer.from(dir))));
    this.#advice = allowsUnsandboxed
      ? " Run the command with dangerouslyDisableSandbox if the repository is wanted."
      : " Ask the user to create it if the repository is wanted.";
  }

  /**
   * The repositories among `writable` and `nested` (those with a `.git`), their gitlinks listed
   * and the `.git`s already at those paths noted: those are the user's, never reported.
   */
  static async start(
    writable: readonly string[],
    nested: readonly string[],
    allowsUnsandboxed: boolean,
  ): Promise<GitlinkGuard> {
    const repositories = [...new Set([...writable, ...nested])].flatMap((dir) => {
      const index = indexOf(dir);
      return index ? [{ dir, index, stamp: undefined, gitlinks: [] }] : [];
    });
    const guard = new GitlinkGuard(repositories, [...writable, ...nested], allowsUnsandboxed);
    await Promise.all(
      repositories.map(async (repository) => {
        const stamp = stampOf(repository.index);
        const listing = await listGitlinks(repository.dir);
        if (listing) Object.assign(repository, { stamp, gitlinks: listing });
      }),
    );
    for (const checkout of guard.#checkouts()) {
      const git = gitEntry(checkout);
      if (git) guard.#present.set(key(checkout), git);
    }
    return guard;
  }

  /** Rename the `.git`s planted at gitlink paths since the run started; what was found, in words. */
  check(): SandboxViolation[] {
    for (const repository of this.#repositories) refresh(repository);
    return this.#repositories.flatMap((repository) =>
      repository.gitlinks.flatMap((checkout) => {
        const git = gitEntry(checkout);
        if (!git || this.#protected.has(key(checkout)) || this.#present.get(key(checkout)) === git) return [];
        // The host's git does not follow a symbolic link at or above a submodule path: nothing to fear, nothing to rename.
        if (!realPathIs(checkout)) return [];
        return [this.#setAside(repository.dir, checkout)];
      }),
    );
  }

  #checkouts(): Buffer[] {
    return this.#repositories.flatMap((repository) => repository.gitlinks);
  }

  #setAside(repository: string, checkout: Buffer): SandboxViolation {
    const from = Buffer.concat([checkout, Buffer.from("/.git")]);
    const shown = path.relative(repository, checkout.toString());
    const about = `a repository created by a sandboxed command at a submodule path of the repository in ${repository}`;
    const risk = "the host's git would enter it and run its config (core.fsmonitor, hooks).";
    let outcome: string;
    try {
      const name = freeName(checkout);
      renameSync(from, Buffer.concat([checkout, Buffer.from(`/${name}`)]));
      outcome = `was renamed to ${shown}/${name}`;
    } catch (error) {
      outcome = `could not be renamed (${(error as NodeJS.ErrnoException).code ?? String(error)}); do not run git in ${repository} before removing it`;
    }
    return {
      kind: "write",
      target: from.toString(),
      message: `${shown}/.git, ${about}, ${outcome}: ${risk}${this.#advice}`,
    };
  }
}

/** Read the repository's gitlinks again when its index changed (a failed listing keeps the last one and is retried). */
function refresh(repository: Repository): void {
  const stamp = stampOf(repository.index);
  if (stamp === repository.stamp) return;
  const listing = spawnSync("git", LS_FILES, {
    cwd: repository.dir,
    env: gitEnvironment(),
    maxBuffer: MAX_LISTING_BYTES,
    timeout: LISTING_TIMEOUT_MS,
    stdio: ["ignore", "pipe", "ignore"],
  });
  // Without git on the host there is no git to enter a submodule either: not tried again.
  if ((listing.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") repository.stamp = stamp;
  if (listing.status !== 0 || !listing.stdout) return;
  repository.stamp = stamp;
  repository.gitlinks = gitlinksIn(listing.stdout, repository.dir);
}

async function listGitlinks(dir: string): Promise<Buffer[] | undefined> {
  return new Promise((resolve) => {
    const options = { cwd: dir, env: gitEnvironment(), maxBuffer: MAX_LISTING_BYTES, timeout: LISTING_TIMEOUT_MS };
    execFile("git", LS_FILES, { ...options, encoding: "buffer" }, (error, stdout) =>
      resolve(error ? undefined : gitlinksIn(stdout, dir)),
    );
  });
}

/** The checkout paths of `ls-files --stage -z` records `<mode> <object> <stage>\t<path>` with mode 160000. */
function gitlinksIn(listing: Buffer, dir: string): Buffer[] {
  const prefix = Buffer.from(`${dir}/`);
  const found: Buffer[] = [];
  for (let start = 0; start < listing.length;) {
    const end = listing.indexOf(0, start);
    const record = listing.subarray(start, end === -1 ? listing.length : end);
    start = end === -1 ? listing.length : end + 1;
    if (!record.subarray(0, GITLINK.length).equals(GITLINK)) continue;
    const tab = record.indexOf(9);
    if (tab !== -1) found.push(Buffer.concat([prefix, record.subarray(tab + 1)]));
  }
  return found;
}

/** The host's environment without what would point git elsewhere (`GIT_DIR`, `GIT_INDEX_FILE`, …); no optional locks. */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return { ...env, GIT_OPTIONAL_LOCKS: "0" };
}

/** The index of the repository in `dir`: `.git/index`, or in the folder a `.git` file names. */
function indexOf(dir: string): string | undefined {
  const git = path.join(dir, ".git");
  const stats = statSync(git, { throwIfNoEntry: false });
  if (stats?.isDirectory()) return path.join(git, "index");
  if (!stats?.isFile()) return undefined;
  try {
    const named = /^gitdir: (.+)$/m.exec(readFileSync(git, "utf8"))?.[1]?.trim();
    return named ? path.join(path.resolve(dir, named), "index") : undefined;
  } catch {
    return undefined;
  }
}

/** git replaces its index by renaming a new file over it: a new inode each time, and new times. */
function stampOf(index: string): string {
  try {
    const stats = statSync(index, { bigint: true, throwIfNoEntry: false });
    return stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}` : "none";
  } catch {
    return "none";
  }
}

/**
 * The identity of `<checkout>/.git` (a folder, a file, a link), or undefined when there is none:
 * its inode, and its kind and birth time, since a file system hands a freed inode number to the
 * next file made (a command that removes the `.git` and plants another may get the same number).
 * Not its change time, which git's own work inside a `.git` folder moves on.
 */
function gitEntry(checkout: Buffer): string | undefined {
  let stats;
  try {
    stats = lstatSync(Buffer.concat([checkout, Buffer.from("/.git")]), { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stats && `${stats.dev}:${stats.ino}:${stats.mode & BigInt(constants.S_IFMT)}:${stats.birthtimeNs}`;
}

/** Undefined also when a command left a file where a folder of the path was (ENOTDIR). */
function lstatOrNone(file: Buffer) {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** `.git-sandboxed`, or `.git-sandboxed-2`, … when taken. */
function freeName(checkout: Buffer): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? ".git-sandboxed" : `.git-sandboxed-${n}`;
    if (!lstatOrNone(Buffer.concat([checkout, Buffer.from(`/${name}`)]))) return name;
  }
}

function realPathIs(file: Buffer): boolean {
  try {
    return realpathSync.native(file, { encoding: "buffer" }).equals(file);
  } catch {
    return false;
  }
}

/** A lossless string key for a path held as bytes. */
const key = (file: Buffer) => file.toString("latin1");
