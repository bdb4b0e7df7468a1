import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolSession } from "../../tool-session.js";
import { SpillFile } from "./spill-file.js";
import { ownerOf, ownerState, parseOwner } from "./spill-owner.js";

/** A spill directory nobody can vouch for is removed once nothing in it changed for a day. */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** The record, in each spill directory, of the process that owns it. */
export const OWNER_FILE = "owner.json";

/** Where spill directories live: `<tmp>/gyre-bash`, shared by every Gyre process and user. */
export function spillRoot(): string {
  return join(tmpdir(), "gyre-bash");
}

/**
 * The directory of one session's long outputs, `<root>/<session>-XXXXXX/`, created (mode
 * 0700, with an owner record) on the first spill and removed with everything in it when the
 * session's run ends.
 */
export class SpillDirectory {
  readonly #sessionId: string;
  readonly #root: string;
  readonly #files = new Set<SpillFile>();
  #path: string | undefined;
  #unavailable = false;
  #removed = false;

  constructor(sessionId: string, root: string = spillRoot()) {
    this.#sessionId = sessionId;
    this.#root = root;
  }

  /** The directory, once created. */
  get path(): string | undefined {
    return this.#path;
  }

  /** A new file for the output of `id`; undefined once the run has ended or when none can be made. */
  create(id: string, maxBytes?: number): SpillFile | undefined {
    if (this.#removed) return undefined;
    const directory = this.#ensure();
    if (directory === undefined) return undefined;
    const file = SpillFile.create(join(directory, `${safeName(id)}.log`), maxBytes);
    if (file) this.#files.add(file);
    return file;
  }

  /** Discard every file and remove the directory; later `create` calls get nothing. */
  remove(): void {
    this.#removed = true;
    for (const file of this.#files) file.discard();
    this.#files.clear();
    if (this.#path !== undefined) rmSync(this.#path, { recursive: true, force: true });
  }

  #ensure(): string | undefined {
    if (this.#path !== undefined || this.#unavailable) return this.#path;
    try {
      prepareRoot(this.#root);
      const directory = mkdtempSync(join(this.#root, `${safeName(this.#sessionId)}-`));
      writeFileSync(join(directory, OWNER_FILE), JSON.stringify(ownerOf()), { mode: 0o600 });
      this.#path = directory;
    } catch {
      // No spill file then: the output is still cut to head and tail in memory.
      this.#unavailable = true;
    }
    return this.#path;
  }
}

/**
 * The root is shared like /tmp (mode 1777: everyone may add, only owners may remove). One
 * that is a symlink, or someone else's and not sticky, is refused: files there could be
 * swapped or read.
 */
function prepareRoot(root: string): void {
  try {
    mkdirSync(root, { mode: 0o1777 });
    chmodSync(root, 0o1777);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const info = lstatSync(root);
  if (!info.isDirectory()) throw new Error(`${root} is not a directory`);
  const mine = process.getuid === undefined || info.uid === process.getuid();
  if (!mine && (info.mode & 0o1000) === 0) throw new Error(`${root} belongs to another user`);
}

function safeName(value: string): string {
  return value.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/**
 * Remove spill directories that runs left behind (killed, crashed): those whose owner is
 * certainly gone, and those whose owner cannot be checked (another host or container, no
 * record) once nothing in them changed for {@link STALE_AFTER_MS}. A directory whose owner
 * is alive is never removed. Returns the directories removed.
 */
export async function removeStaleSpillDirectories(
  root: string = spillRoot(),
  now: number = Date.now(),
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const directory = join(root, name);
    if (!(await isStale(directory, now))) continue;
    try {
      await rm(directory, { recursive: true, force: true });
      removed.push(directory);
    } catch {
      // Someone else's (the root is sticky) or removed meanwhile: not ours to worry about.
    }
  }
  return removed;
}

async function isStale(directory: string, now: number): Promise<boolean> {
  try {
    if (!(await stat(directory)).isDirectory()) return false;
    const owner = parseOwner(await readFile(join(directory, OWNER_FILE), "utf8").catch(() => ""));
    const state = owner ? ownerState(owner) : "unknown";
    if (state !== "unknown") return state === "dead";
    return now - (await lastModified(directory)) > STALE_AFTER_MS;
  } catch {
    return false;
  }
}

/** The latest change to a directory or any file in it (a live command's output keeps it recent). */
async function lastModified(directory: string): Promise<number> {
  let latest = (await stat(directory)).mtimeMs;
  for (const name of await readdir(directory)) {
    const info = await stat(join(directory, name)).catch(() => undefined);
    if (info) latest = Math.max(latest, info.mtimeMs);
  }
  return latest;
}

const KEY = Symbol("gyre.bash.spillDirectory");

/**
 * The session's spill directory. On first use it also starts removing stale directories of
 * other runs; when the session ends its own directory is removed (and the sweep awaited).
 */
export function spillDirectoryOf(session: ToolSession): SpillDirectory {
  return session.get(KEY, () => {
    const directory = new SpillDirectory(session.id);
    const sweep = removeStaleSpillDirectories().catch(() => []);
    session.onDispose(async () => {
      directory.remove();
      await sweep;
    });
    return directory;
  });
}
