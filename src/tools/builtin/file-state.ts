import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { GyreError } from "../../errors/index.js";
import type { ToolSession } from "../tool-session.js";
import { readWhole } from "./read-whole.js";

/** A file opened (and verified, see `openVerified`) by a tool, with its stats as opened. */
export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/** What Gyre knew about a file when a tool last read or wrote it in this session. */
export interface FileSnapshot {
  mtimeMs: number;
  size: number;
  /** SHA-256 of the whole file, when the tool saw all of it (lets a touched-but-same file pass). */
  sha256?: string;
}

/** Files at most this big are re-hashed when their mtime changed, to tell a real change from a touch. */
const REHASH_LIMIT_BYTES = 16 * 1024 * 1024;

const KEY = Symbol("gyre.builtin.file-state");

/** The session's snapshots, keyed by real path (symlinks followed). */
export function fileStates(session: ToolSession): Map<string, FileSnapshot> {
  return session.get(KEY, () => new Map<string, FileSnapshot>());
}

/** Remember that the file at `realPath` was read or written, as it is now. */
export function recordFileState(session: ToolSession, realPath: string, snapshot: FileSnapshot): void {
  fileStates(session).set(realPath, snapshot);
}

/** The SHA-256 of some bytes, hex. */
export function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Refuse to change an existing file unless this session read it and it has not changed on
 * disk since. A changed mtime or size counts as a change, unless the whole file was seen
 * before and its bytes still hash the same. `file` is the file at `realPath`, opened.
 */
export async function assertUnchangedSinceRead(
  session: ToolSession,
  realPath: string,
  toolName: string,
  file: OpenedFile,
): Promise<void> {
  const known = fileStates(session).get(realPath);
  if (!known) {
    throw new GyreError("tool_error", `File has not been read yet: ${realPath}. Read it first before writing to it.`, {
      toolName,
    });
  }
  const now = file.stats;
  if (now.mtimeMs === known.mtimeMs && now.size === known.size) return;
  if (known.sha256 !== undefined && now.size === known.size && now.size <= REHASH_LIMIT_BYTES) {
    if (sha256(await readWhole(file.handle, now.size)) === known.sha256) return;
  }
  throw new GyreError(
    "tool_error",
    `File has been modified since it was read (by the user, a linter or another tool): ${realPath}. ` +
      "Read it again before attempting to write it.",
    { toolName },
  );
}
