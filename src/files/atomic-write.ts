import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errorMessage, fsErrorCode, GyreError } from "../errors/index.js";
import { type FolderUse, HeldFolder } from "./held-folder.js";
import { pathChangedError } from "./path-changed.js";
import { realTargetOf } from "./real-target.js";

export interface AtomicWriteOptions {
  /** The tool named in errors (`Write`, `Edit`). */
  toolName: string;
  /** The path as the caller knows it, for messages (default: `path`). */
  displayPath?: string;
  /**
   * The real path to replace, symlinks already followed (a tool passes what its permission
   * check approved, `FileGuard.approvedPath`): the bytes go to exactly that file, and a path
   * that no longer leads there is refused. Default: where `path` leads now, through symlinks.
   */
  realPath?: string;
  /** Make the folders above the file that do not exist, each inside the one before it. */
  createFolders?: boolean;
}

const NAME_MAX_BYTES = 255;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * Replaces the file at `path` with `bytes` so that any failure or crash leaves either the
 * whole old file or the whole new one: the bytes go to a new temp file in the same folder
 * (`.<name>.gyre-<random>.tmp`), which is fsynced and renamed over the target; then the folder
 * is fsynced (best effort: not every platform can open a folder).
 *
 * - Where it writes: the real path of `path` (or `options.realPath`). Its folder is held open
 *   and verified to be that folder (see {@link HeldFolder}), and the temp file is created,
 *   renamed and, on failure, removed in that folder, so a folder renamed or swapped for a
 *   symlink meanwhile never makes the write, or its temp file, land anywhere else: a path that
 *   changed is refused (a `GyreError`), never followed to its new target.
 * - A symlink at `path` is followed: the file it points to is replaced, the link stays.
 * - An existing file keeps its mode and owner; a file it cannot give the same owner is refused,
 *   as is a file without write permission. A new file gets mode 0666 less the umask.
 * - Other hard links to an existing file keep the old content (the path gets a new inode).
 * - A folder that is not writable means no temp file, so the call fails rather than writing in
 *   place (which could leave a partial file).
 * - On an error the temp file is removed and the target untouched; the error is a `GyreError`
 *   that says so. Only `kill -9` or a power cut mid-write leaves the temp file behind, beside
 *   the target; its name (see {@link tempFileName}) says whose it is, and nothing reads it.
 *
 * Returns the new file's stats.
 */
export async function atomicWriteFile(path: string, bytes: Uint8Array, options: AtomicWriteOptions): Promise<Stats> {
  const use: FolderUse = { shown: options.displayPath ?? path, toolName: options.toolName, action: "written" };
  const progress: Progress = { stage: "check", folder: dirname(options.realPath ?? path), original: undefined };
  let folder: HeldFolder | undefined;
  try {
    const target = options.realPath ?? (await realTargetOf(path));
    progress.folder = dirname(target);
    folder = await HeldFolder.open(progress.folder, use, { create: options.createFolders ?? false });
    return await replaceInFolder(folder, basename(target), bytes, use, progress);
  } catch (error) {
    throw writeError(error, { ...progress, shown: use.shown, toolName: use.toolName });
  } finally {
    await folder?.close();
  }
}

type Stage = "check" | "create" | "write";

/** How far a write got, for its error message. */
interface Progress {
  stage: Stage;
  folder: string;
  original: Stats | undefined;
}

/** The temp file's dance, every step inside `folder`. */
async function replaceInFolder(
  folder: HeldFolder,
  name: string,
  bytes: Uint8Array,
  use: FolderUse,
  progress: Progress,
): Promise<Stats> {
  const original = await lstatIfExists(folder, name, use);
  progress.original = original;
  if (original) await assertReplaceable(folder, name, original, use);
  progress.stage = "create";
  const { temp, handle } = await createTempFile(folder, name, original);
  let written: Stats;
  try {
    progress.stage = "write";
    if (original) await keepOwnerAndMode(handle, original, use.shown, use.toolName);
    await handle.writeFile(bytes);
    await handle.sync();
    written = await handle.stat();
    await handle.close();
    await folder.rename(temp, name);
  } catch (error) {
    await handle.close().catch(() => {});
    await folder.unlink(temp).catch(() => {});
    throw error;
  }
  await folder.sync();
  return written;
}

/** What is at `name` now, if anything; a symlink there was put there after the path was resolved. */
async function lstatIfExists(folder: HeldFolder, name: string, use: FolderUse): Promise<Stats | undefined> {
  let stats: Stats;
  try {
    stats = await folder.lstat(name);
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  if (stats.isSymbolicLink()) throw pathChangedError(use, join(folder.path, name), "written");
  return stats;
}

/** Creates a new temp file beside the target; `O_EXCL` never opens someone else's file (nor follows a link). */
async function createTempFile(folder: HeldFolder, name: string, original: Stats | undefined) {
  // Private until its owner and mode are set; a new file's mode is left to the umask, as writeFile does.
  const mode = original ? 0o600 : 0o666;
  for (let attempt = 0; ; attempt++) {
    const temp = tempFileName(name);
    try {
      return { temp, handle: await folder.openFile(temp, CREATE_NEW, mode) };
    } catch (error) {
      if (fsErrorCode(error) !== "EEXIST" || attempt >= 3) throw error;
    }
  }
}

/** `.<name>.gyre-<12 hex>.tmp`: hidden, clearly ours, and within the 255-byte name limit. */
export function tempFileName(name: string): string {
  const suffix = `.gyre-${randomBytes(6).toString("hex")}.tmp`;
  let kept = name;
  while (Buffer.byteLength(`.${kept}${suffix}`) > NAME_MAX_BYTES) kept = [...kept].slice(0, -1).join("");
  return `.${kept}${suffix}`;
}

/** Owner before mode: chown clears the setuid and setgid bits. */
async function keepOwnerAndMode(handle: FileHandle, original: Stats, shown: string, toolName: string) {
  const made = await handle.stat();
  if (process.platform !== "win32" && (made.uid !== original.uid || made.gid !== original.gid)) {
    try {
      await handle.chown(original.uid, original.gid);
    } catch (error) {
      throw new GyreError(
        "tool_error",
        `Cannot write ${shown}: it is owned by uid ${original.uid} gid ${original.gid}, and this process ` +
          `cannot give the replacement file that owner (${fsErrorCode(error) ?? errorMessage(error)}). ` +
          `${toolName} replaces a file as a whole, so it is never left half-written; the file was not changed.`,
        { toolName, cause: error },
      );
    }
  }
  await handle.chmod(original.mode & 0o7777);
}

/**
 * Only a regular file the process may write is replaced: the rename would otherwise turn a
 * device or FIFO into a plain file, and ignore a file's read-only bit. Opening it for writing
 * (without truncating) asks exactly what writing in place would have asked: effective ids,
 * ACLs, read-only attributes; root may still write.
 */
async function assertReplaceable(folder: HeldFolder, name: string, original: Stats, use: FolderUse) {
  const { shown, toolName } = use;
  if (original.isDirectory()) throw Object.assign(new Error(`${shown} is a directory`), { code: "EISDIR" });
  if (!original.isFile()) {
    throw new GyreError(
      "tool_error",
      `Cannot write ${shown}: it is not a regular file (a device, FIFO or socket); ${toolName} writes regular files only.`,
      { toolName },
    );
  }
  await (await folder.openFile(name, constants.O_RDWR)).close();
}

interface ErrorContext {
  shown: string;
  folder: string;
  original: Stats | undefined;
  toolName: string;
  stage: Stage;
}

/**
 * A `GyreError` saying why the write failed and that nothing changed. Path problems
 * (missing, not a folder, a directory) are returned as they are: the tools' usual messages
 * for those name near matches.
 */
function writeError(error: unknown, { shown, folder, original, toolName, stage }: ErrorContext): unknown {
  if (error instanceof GyreError) return error;
  const code = fsErrorCode(error);
  if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "ELOOP") return error;
  const unchanged = original ? "The file was not changed." : "No file was created.";
  const fail = (reason: string) =>
    new GyreError("tool_error", `Cannot write ${shown}: ${reason}. ${unchanged}`, { toolName, cause: error });
  switch (code) {
    case "ENOSPC":
      return fail("no space left on device (ENOSPC)");
    case "EDQUOT":
      return fail("disk quota exceeded (EDQUOT)");
    case "EFBIG":
      return fail("the file would be larger than allowed (EFBIG)");
    case "EROFS":
      return fail("the file system is read-only (EROFS)");
    case "EACCES":
    case "EPERM":
      if (stage === "check") return fail(`permission denied: the file is not writable (${code})`);
      if (stage === "create") {
        return fail(
          `permission denied (${code}) creating a temporary file in ${folder}. ${toolName} writes a ` +
            "new copy beside the file and renames it over the original, so a failure never leaves the file " +
            "half-written; that needs write permission on the folder, not only on the file",
        );
      }
      return fail(`permission denied (${code})`);
    default:
      return fail(errorMessage(error));
  }
}
