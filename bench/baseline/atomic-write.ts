// The atomic write that file tools used before issue 26 (finding 4): it resolves the path
// and then creates, renames and removes its temp file by path, so a folder swapped meanwhile
// is followed. Kept only as the baseline of bench/file-tools.bench.mjs, which measures what
// holding and verifying the folder adds.
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { errorMessage, fsErrorCode, GyreError } from "../../src/errors/index.js";

export interface AtomicWriteOptions {
  /** The tool named in errors (`Write`, `Edit`). */
  toolName: string;
  /** The path as the caller knows it, for messages (default: `path`). */
  displayPath?: string;
}

/** Symlinks followed before giving up, as the kernel's own limit (`ELOOP`). */
const MAX_SYMLINKS = 40;
const NAME_MAX_BYTES = 255;

/**
 * Replaces the file at `path` with `bytes` so that any failure or crash leaves either the
 * whole old file or the whole new one: the bytes go to a new temp file in the same folder
 * (`.<name>.gyre-<random>.tmp`), which is fsynced and renamed over the target; then the folder
 * is fsynced (best effort: not every platform can open a folder).
 *
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
  const shown = options.displayPath ?? path;
  let stage: Stage = "check";
  let target = path;
  let original: Stats | undefined;
  let tempPath: string | undefined;
  let handle: FileHandle | undefined;
  try {
    ({ target, original } = await followSymlinks(path));
    if (original) await assertReplaceable(target, original, shown, options.toolName);
    stage = "create";
    ({ tempPath, handle } = await createTempFile(target, original));
    stage = "write";
    if (original) await keepOwnerAndMode(handle, original, shown, options.toolName);
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tempPath, target);
  } catch (error) {
    if (handle) await handle.close().catch(() => {});
    if (tempPath) await unlink(tempPath).catch(() => {});
    throw writeError(error, { shown, folder: dirname(target), original, toolName: options.toolName, stage });
  }
  await syncFolder(dirname(target));
  return stat(target);
}

type Stage = "check" | "create" | "write";

/** The file `path` leads to through any symlinks (even a dangling one), and its stats if it exists. */
async function followSymlinks(path: string): Promise<{ target: string; original: Stats | undefined }> {
  let target = path;
  for (let hops = 0; hops <= MAX_SYMLINKS; hops++) {
    let stats: Stats;
    try {
      stats = await lstat(target);
    } catch (error) {
      if (fsErrorCode(error) === "ENOENT") return { target, original: undefined };
      throw error;
    }
    if (!stats.isSymbolicLink()) return { target, original: stats };
    target = resolve(dirname(target), await readlink(target));
  }
  throw Object.assign(new Error(`too many symbolic links at ${path}`), { code: "ELOOP" });
}

/** Creates a new temp file beside `target`; `wx` never opens someone else's file. */
async function createTempFile(target: string, original: Stats | undefined) {
  // Private until its owner and mode are set; a new file's mode is left to the umask, as writeFile does.
  const mode = original ? 0o600 : 0o666;
  for (let attempt = 0; ; attempt++) {
    const tempPath = join(dirname(target), tempFileName(basename(target)));
    try {
      return { tempPath, handle: await open(tempPath, "wx", mode) };
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

/** Makes the rename itself durable. Not every platform can open a folder (Windows), hence best effort. */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch {
    // The data is already durable; only the new name might not survive a power cut.
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Only a regular file the process may write is replaced: the rename would otherwise turn a
 * device or FIFO into a plain file, and ignore a file's read-only bit. Opening it for writing
 * (without truncating) asks exactly what writing in place would have asked: effective ids,
 * ACLs, read-only attributes; root may still write.
 */
async function assertReplaceable(target: string, original: Stats, shown: string, toolName: string) {
  if (original.isDirectory()) throw Object.assign(new Error(`${target} is a directory`), { code: "EISDIR" });
  if (!original.isFile()) {
    throw new GyreError(
      "tool_error",
      `Cannot write ${shown}: it is not a regular file (a device, FIFO or socket); ${toolName} writes regular files only.`,
      { toolName },
    );
  }
  await (await open(target, "r+")).close();
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
