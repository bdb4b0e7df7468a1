import { fsErrorCode, GyreError } from "../../errors/index.js";
import { atomicWriteFile, openVerified } from "../../files/index.js";
import type { FileSnapshot, OpenedFile } from "./file-state.js";
import { sha256 } from "./file-state.js";
import { isDirectoryError } from "./paths-errors.js";
import { readWhole } from "./read-whole.js";
import {
  decodeFile,
  describeFormat,
  detectTextFormat,
  encodeFile,
  looksBinary,
  type TextFormat,
} from "./read-encoding.js";

/** A text file's encoding, BOM and line endings: what Write and Edit keep when they change it. */
export interface TextFileFormat extends TextFormat {
  /** `crlf` only when every line break in the file is `\r\n`; mixed files are left as they are. */
  lineEnding: "lf" | "crlf";
}

export const NEW_FILE_FORMAT: TextFileFormat = { encoding: "utf8", bom: false, lineEnding: "lf" };

export interface LoadedTextFile {
  /** The decoded text with `\r\n` turned into `\n` when the file is `crlf`. */
  text: string;
  format: TextFileFormat;
}

/** Files bigger than this are not loaded whole for editing. */
const MAX_EDIT_BYTES = 64 * 1024 * 1024;
const SNIFF_BYTES = 64 * 1024;

/**
 * The existing file at `realPath` (symlinks followed: what the permission check approved, or
 * where the path leads now), opened for reading through its verified folder so that a folder
 * swapped meanwhile is refused, never followed; `undefined` when no file is there. A folder or
 * a device, FIFO or socket at `realPath` is refused.
 */
export async function openExistingFile(
  realPath: string,
  shown: string,
  toolName: string,
): Promise<OpenedFile | undefined> {
  const accept = (kind: { isFile(): boolean; isDirectory(): boolean }) => {
    if (kind.isDirectory()) throw isDirectoryError(shown, toolName);
    if (!kind.isFile()) throw notRegularFile(shown, toolName);
  };
  let handle;
  try {
    handle = await openVerified(realPath, { shown, toolName, action: "written" }, { accept });
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    // What was checked by name is checked again on the open file (it could be swapped between).
    accept(stats);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function notRegularFile(shown: string, toolName: string): GyreError {
  return new GyreError(
    "tool_error",
    `Cannot write ${shown}: it is not a regular file (a device, FIFO or socket); ${toolName} writes regular files only.`,
    { toolName },
  );
}

/**
 * Load a whole text file for editing, or `undefined` when it is binary. Line endings are
 * normalised to `\n`, matching what the model sends. `file` is the file at `realPath`, opened.
 */
export async function loadTextFile(
  file: OpenedFile,
  realPath: string,
  toolName: string,
): Promise<LoadedTextFile | undefined> {
  const { size } = file.stats;
  if (size > MAX_EDIT_BYTES) {
    throw new GyreError(
      "tool_error",
      `${realPath} is ${size} bytes; ${toolName} loads files up to ${MAX_EDIT_BYTES} bytes. ` +
        "Change it with a streaming tool via the Bash tool (e.g. sed) instead.",
      { toolName },
    );
  }
  const bytes = await readWhole(file.handle, size);
  const format = detectTextFormat(bytes, true);
  if (looksBinary(bytes.subarray(0, SNIFF_BYTES), format)) return undefined;
  const raw = decodeFile(bytes, format);
  const lineEnding = isAllCrlf(raw) ? "crlf" : "lf";
  return {
    text: lineEnding === "crlf" ? raw.replaceAll("\r\n", "\n") : raw,
    format: { ...format, lineEnding },
  };
}

/**
 * Encode `text` (with `\n` line breaks) in `format`: `\n` becomes `\r\n` for `crlf` files,
 * the encoding and BOM are kept. Returns the first character the encoding cannot hold
 * instead of writing a replacement for it.
 */
export function encodeTextFile(
  text: string,
  format: TextFileFormat,
): { ok: true; bytes: Buffer } | { ok: false; character: string } {
  const withEndings = format.lineEnding === "crlf" ? text.replace(/\r?\n/g, "\r\n") : text;
  return encodeFile(withEndings, format);
}

/** The error for text the file's encoding cannot hold. */
export function unencodableError(path: string, format: TextFileFormat, character: string, toolName: string) {
  return new GyreError(
    "tool_error",
    `${path} is ${describeFormat(format)} text, which cannot hold the character "${character}" ` +
      `(U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}). ` +
      "Use only characters that encoding supports, or rewrite the whole file with Write (which saves it as UTF-8).",
    { toolName },
  );
}

/**
 * Write bytes atomically (the old file or the new one, never a mix; see {@link atomicWriteFile})
 * to exactly the file at `realPath` (never through a folder swapped since it was resolved), and
 * return the snapshot to record, so a following Edit sees the file as read. `createFolders`
 * makes missing folders above a new file.
 */
export async function writeAndSnapshot(
  realPath: string,
  bytes: Buffer,
  options: { toolName: string; displayPath: string; createFolders?: boolean },
): Promise<FileSnapshot> {
  const after = await atomicWriteFile(realPath, bytes, { ...options, realPath });
  return { mtimeMs: after.mtimeMs, size: after.size, sha256: sha256(bytes) };
}

function isAllCrlf(text: string): boolean {
  let index = text.indexOf("\n");
  if (index === -1) return false;
  while (index !== -1) {
    if (text.charCodeAt(index - 1) !== 13) return false;
    index = text.indexOf("\n", index + 1);
  }
  return true;
}
