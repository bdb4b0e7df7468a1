import { constants } from "node:fs";
import { access, type FileHandle, lstat, mkdir, open, readlink, realpath, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fsErrorCode } from "../errors/index.js";
import { type FileAccessor, pathChangedError } from "./path-changed.js";

/**
 * Linux's `O_PATH`: a descriptor that names a folder without opening it for reading, so holding
 * a folder needs only the search permission that walking through it needs. Node has no constant
 * for it; its value is the generic one on every architecture Node builds for on Linux.
 */
const O_PATH = 0o10000000;
const GENERIC_FCNTL_ARCHES = new Set(["x64", "ia32", "arm", "arm64", "ppc64", "s390x", "riscv64", "loong64", "mipsel"]);
const FOLDER_FLAGS =
  (GENERIC_FCNTL_ARCHES.has(process.arch) ? O_PATH : constants.O_RDONLY) | (constants.O_DIRECTORY ?? 0);
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** What the caller does with the folder, for the refusal's wording. */
export type FolderUse = FileAccessor & { action: "read" | "written" };

let descriptorPaths: Promise<boolean> | undefined;

/**
 * Whether a path through `/proc/self/fd/<n>/` reaches the folder that descriptor holds, however
 * the folder was renamed or whatever replaced it at its old path: Linux with procfs. Probed once.
 */
function pathsThroughDescriptors(): Promise<boolean> {
  descriptorPaths ??=
    process.platform === "linux"
      ? access("/proc/self/fd").then(
          () => true,
          () => false,
        )
      : Promise.resolve(false);
  return descriptorPaths;
}

/**
 * A folder held open by a descriptor whose real path was verified to be the expected one, so
 * that files are opened, created, renamed and removed in that folder and nowhere else, even
 * while another process renames the folders above it or swaps one for a symlink. Node has no
 * `openat`/`renameat`; on Linux a path through `/proc/self/fd/<n>/` resolves through the held
 * descriptor instead (see {@link HeldFolder.entry}).
 *
 * Elsewhere (macOS, Windows, Linux without procfs) nothing is held: the folder's real path is
 * checked when it is opened and again before each change, which narrows the window for a swap
 * but cannot close it.
 */
export class HeldFolder {
  /** The folder's real path, as verified. */
  readonly path: string;
  readonly #handle: FileHandle | undefined;
  readonly #use: FolderUse;

  private constructor(path: string, handle: FileHandle | undefined, use: FolderUse) {
    this.path = path;
    this.#handle = handle;
    this.#use = use;
  }

  /**
   * Opens the folder at `realDir` (a real path: no symlinks on it) and verifies that the
   * descriptor holds exactly that folder. With `create`, missing folders are made one by one,
   * each inside the one before it, held the same way. Errors: the fs error (`ENOENT`,
   * `ENOTDIR`, `EACCES`, …) as it is, or a `GyreError` when the path led elsewhere.
   */
  static async open(realDir: string, use: FolderUse, options: { create?: boolean } = {}): Promise<HeldFolder> {
    if (!(await pathsThroughDescriptors())) return HeldFolder.#openByPath(realDir, use, options.create ?? false);
    let handle: FileHandle;
    try {
      handle = await open(realDir, FOLDER_FLAGS);
    } catch (error) {
      const parent = dirname(realDir);
      if (!options.create || fsErrorCode(error) !== "ENOENT" || parent === realDir) throw error;
      const above = await HeldFolder.open(parent, use, options);
      try {
        return await above.#makeFolder(basename(realDir));
      } finally {
        await above.close();
      }
    }
    return HeldFolder.#verified(realDir, handle, use);
  }

  /**
   * A path to `name` in this folder. On Linux it goes through the held descriptor
   * (`/proc/self/fd/<n>/<name>`): only `name` itself is looked up, in this very folder.
   */
  entry(name: string): string {
    return this.#handle ? `/proc/self/fd/${this.#handle.fd}/${name}` : join(this.path, name);
  }

  /**
   * Opens `name` in this folder, never through a symlink at `name` (one there now means the
   * path changed since it was resolved: refused). `O_NOFOLLOW` is added to `flags`.
   */
  async openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    await this.#recheck();
    try {
      return await open(this.entry(name), flags | NO_FOLLOW, mode);
    } catch (error) {
      if (fsErrorCode(error) === "ELOOP") throw pathChangedError(this.#use, join(this.path, name), this.#use.action);
      throw error;
    }
  }

  /** `lstat` of `name` in this folder. */
  lstat(name: string) {
    return lstat(this.entry(name));
  }

  /** Renames `from` to `to`, both in this folder. */
  async rename(from: string, to: string): Promise<void> {
    await this.#recheck();
    await rename(this.entry(from), this.entry(to));
  }

  /** Removes `name` from this folder. */
  unlink(name: string): Promise<void> {
    return unlink(this.entry(name));
  }

  /**
   * Makes the folder's entries (a rename) durable. Best effort: a folder this process may not
   * read, or a platform that cannot open folders (Windows), is not synced.
   */
  async sync(): Promise<void> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.entry("."), constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
      await handle.sync();
    } catch {
      // The data is already durable; only the new name might not survive a power cut.
    } finally {
      await handle?.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.#handle?.close();
  }

  /** The folder `name` in this one, made if missing, held and verified. */
  async #makeFolder(name: string): Promise<HeldFolder> {
    const path = join(this.path, name);
    try {
      await mkdir(this.entry(name));
    } catch (error) {
      if (fsErrorCode(error) !== "EEXIST") throw error;
    }
    let handle: FileHandle;
    try {
      handle = await open(this.entry(name), FOLDER_FLAGS | NO_FOLLOW);
    } catch (error) {
      // O_DIRECTORY refuses a symlink at `name` with ENOTDIR: someone put it there after the check.
      const code = fsErrorCode(error);
      const link = (code === "ENOTDIR" || code === "ELOOP") && (await this.lstat(name)).isSymbolicLink();
      throw link ? pathChangedError(this.#use, path, this.#use.action, error) : error;
    }
    return HeldFolder.#verified(path, handle, this.#use);
  }

  /** The folder held by `handle` if the kernel names it `realDir`; otherwise refused (and closed). */
  static async #verified(realDir: string, handle: FileHandle, use: FolderUse): Promise<HeldFolder> {
    let held: string;
    try {
      held = await readlink(`/proc/self/fd/${handle.fd}`);
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (held === realDir) return new HeldFolder(realDir, handle, use);
    await handle.close();
    throw pathChangedError(use, realDir, use.action);
  }

  static async #openByPath(realDir: string, use: FolderUse, create: boolean): Promise<HeldFolder> {
    if (create) await mkdir(realDir, { recursive: true });
    const folder = new HeldFolder(realDir, undefined, use);
    await folder.#recheck();
    return folder;
  }

  /** Without a held descriptor: the folder's path must still be real (no symlink swapped in). */
  async #recheck(): Promise<void> {
    if (this.#handle) return;
    if ((await realpath(this.path)) !== this.path) throw pathChangedError(this.#use, this.path, this.#use.action);
  }
}
