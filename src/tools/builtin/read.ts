import type { FileHandle } from "node:fs/promises";
import { realpath } from "node:fs/promises";
import { extname } from "node:path";
import { z } from "zod";
import { GyreError } from "../../errors/index.js";
import { openVerified } from "../../files/index.js";
import { defineTool } from "../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../tool.js";
import { recordFileState, sha256 } from "./file-state.js";
import { resolveToolPath } from "./paths.js";
import { fileAccessError, isDirectoryError } from "./paths-errors.js";
import { bomLength, detectTextFormat, looksBinary, type TextFormat } from "./read-encoding.js";
import { notebookContent, parseNotebook } from "./notebook/index.js";
import { IMAGE_EXTENSIONS, imageBlock, MAX_IMAGE_BYTES, sniffImage } from "./read-image.js";
import { lineIndexFor } from "./read-line-index.js";
import { type LineWindow, lineWindowFromText, readLineWindow } from "./read-lines.js";
import { describeWindow, READ_LIMITS } from "./read-output.js";
import { readWhole } from "./read-whole.js";

export const ReadInput = z.object({
  file_path: z.string().describe("The absolute path to the file to read"),
  offset: z
    .number()
    .min(0)
    .refine(Number.isInteger, "Expected a whole number")
    .optional()
    .describe("The line number to start reading from. Only provide if the file is too large to read at once"),
  limit: z
    .number()
    .min(1)
    .refine(Number.isInteger, "Expected a whole number")
    .optional()
    .describe("The number of lines to read. Only provide if the file is too large to read at once."),
});
export type ReadInput = z.infer<typeof ReadInput>;

const DESCRIPTION = `Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to ${READ_LIMITS.defaultLines} lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than ${READ_LIMITS.maxLineChars} characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- This tool can read images (PNG, JPG, GIF, WEBP); their contents are presented visually
- This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs, combining code, text, and visualizations
- Text in UTF-8, UTF-16 (with BOM) and Latin-1 is decoded; other binary files are refused
- This tool can only read files, not directories. To list a directory, use ls via the Bash tool.
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel.
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents.`;

/** Bytes sniffed to tell images, text encodings and binary apart. */
const SNIFF_BYTES = 64 * 1024;
/** Files bigger than this keep a line index in the session, so paging through them is fast. */
const INDEX_MIN_BYTES = 8 * 1024 * 1024;
/** Notebooks are parsed whole, so they are capped; a larger one is read as text. */
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;
/** UTF-16 files are decoded whole, so they are capped. */
const MAX_UTF16_BYTES = 64 * 1024 * 1024;
/** Files up to this size are hashed on a full read, so a later touch does not block Write/Edit. */
const HASH_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The Claude Code compatible `Read` tool: numbered lines of a text file (streamed, so a
 * slice of a huge file costs flat memory), an image content block, or a notebook's cells with
 * their outputs (images as images). Records the file in
 * the session's read-state so Write and Edit may change it afterwards.
 */
export function readTool(): Tool<ReadInput> {
  return defineTool({
    name: "Read",
    description: DESCRIPTION,
    inputSchema: ReadInput,
    readOnly: true,
    idempotent: true,
    // Read keeps its own output under READ_LIMITS.maxOutputChars, cut at a line boundary.
    maxOutputChars: READ_LIMITS.maxOutputChars * 2,
    execute: (input, context) => readForModel(input, context),
  });
}

async function readForModel(input: ReadInput, context: ToolContext): Promise<ToolResult> {
  const path = resolveToolPath(input.file_path, context.cwd, "Read");
  let handle: FileHandle;
  let realPath: string;
  try {
    // The file the permission check approved, else where the path leads now; opened so that a
    // folder swapped meanwhile is refused, never followed (see openVerified).
    realPath = context.files?.approvedPath ?? (await realpath(path));
    handle = await openVerified(
      realPath,
      { shown: path, toolName: "Read", action: "read" },
      {
        // Opening a FIFO would wait for a writer, a device may act on being opened: neither is a file.
        accept: (kind) => {
          if (!kind.isFile() && !kind.isDirectory()) throw notRegularFile(path);
        },
      },
    );
  } catch (error) {
    throw await fileAccessError(error, path, context.cwd, "Read", "read");
  }
  // From here `handle` is the file at `realPath`, verified: everything is read through it.
  try {
    // The Read rules judge the file opened too, not only the path the permission check saw.
    if (context.files?.mayRead(realPath, { real: realPath, isFile: true }) === false) {
      throw new GyreError("tool_error", `Permission to use Read has been denied by the Read rules for ${path}.`, {
        toolName: "Read",
      });
    }
    const stats = await handle.stat();
    if (stats.isDirectory()) throw isDirectoryError(path, "Read");
    if (!stats.isFile()) throw notRegularFile(path);
    const header = await readHeader(handle, Math.min(stats.size, SNIFF_BYTES));
    const snapshot = { mtimeMs: stats.mtimeMs, size: stats.size };
    const mediaType = sniffImage(header);
    if (mediaType) {
      if (stats.size > MAX_IMAGE_BYTES) throw imageTooLarge(path, stats.size);
      const bytes = await readWhole(handle, stats.size);
      recordFileState(context.session, realPath, { ...snapshot, sha256: sha256(bytes) });
      return {
        content: [imageBlock(bytes, mediaType)],
        data: { type: "image", file: { filePath: path, type: mediaType, originalSize: stats.size } },
      };
    }
    if (extname(path).toLowerCase() === ".ipynb" && stats.size <= MAX_NOTEBOOK_BYTES) {
      const bytes = await readWhole(handle, stats.size);
      const notebook = parseNotebook(bytes.toString("utf8"));
      if (notebook) {
        recordFileState(context.session, realPath, { ...snapshot, sha256: sha256(bytes) });
        const { content, cells } = notebookContent(notebook);
        return { content, data: { type: "notebook", file: { filePath: path, cells } } };
      }
      // Not a notebook after all: read as the text it is.
    }
    const format = detectTextFormat(header, header.length === stats.size);
    if (looksBinary(header, format)) throw binaryFile(path, stats.size);
    const window = await readWindow(handle, realPath, stats.size, format, input, context);
    recordFileState(context.session, realPath, { ...snapshot, sha256: window.sha256 });
    return describeWindow(path, window, format, input.offset ?? 1, stats.size);
  } catch (error) {
    throw await fileAccessError(error, path, context.cwd, "Read", "read");
  } finally {
    await handle.close();
  }
}

async function readHeader(handle: FileHandle, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, 0);
  return buffer.subarray(0, bytesRead);
}

async function readWindow(
  handle: FileHandle,
  realPath: string,
  size: number,
  format: TextFormat,
  input: ReadInput,
  context: ToolContext,
): Promise<LineWindow> {
  const options = {
    startLine: Math.max(1, input.offset ?? 1),
    maxLines: input.limit ?? READ_LIMITS.defaultLines,
    maxLineChars: READ_LIMITS.maxLineChars,
    maxTotalChars: READ_LIMITS.maxOutputChars,
    // "123\t" and the newline: the budget is for the output as the model sees it.
    lineOverheadChars: (lineNumber: number) => String(lineNumber).length + 2,
    signal: context.signal,
  };
  if (format.encoding !== "utf16le") {
    return readLineWindow(handle, size, {
      ...options,
      encoding: format.encoding,
      skipBytes: bomLength(format),
      hashLimitBytes: HASH_LIMIT_BYTES,
      index: size > INDEX_MIN_BYTES ? lineIndexFor(context.session, realPath, await handle.stat()) : undefined,
    });
  }
  if (size > MAX_UTF16_BYTES) {
    throw new GyreError(
      "tool_error",
      `${realPath} is UTF-16 text of ${size} bytes; Read decodes UTF-16 files up to ${MAX_UTF16_BYTES} bytes.`,
      { toolName: "Read" },
    );
  }
  const bytes = await readWhole(handle, size);
  const text = bytes.subarray(bomLength(format)).toString("utf16le");
  return lineWindowFromText(text, options, sha256(bytes));
}

function notRegularFile(path: string): GyreError {
  return new GyreError(
    "tool_error",
    `${path} is not a regular file (a pipe, socket or device), so Read will not open it. Use the Bash tool if you must.`,
    { toolName: "Read" },
  );
}

function imageTooLarge(path: string, size: number): GyreError {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
  return new GyreError(
    "tool_error",
    `Image ${path} is ${mb(size)} MB; images up to ${mb(MAX_IMAGE_BYTES)} MB can be sent to the model. ` +
      "Make a smaller copy first (e.g. with ImageMagick via the Bash tool) and read that.",
    { toolName: "Read" },
  );
}

function binaryFile(path: string, size: number): GyreError {
  const extension = extname(path).toLowerCase();
  const kind = IMAGE_EXTENSIONS.has(extension)
    ? `it has an image extension (${extension}) but is not a valid PNG, JPEG, GIF or WebP image`
    : "it is binary, not text";
  return new GyreError(
    "tool_error",
    `Cannot read ${path} (${size} bytes): ${kind}. ` +
      "Inspect it with a tool made for its format via the Bash tool (e.g. file, xxd, unzip -l, pdftotext).",
    { toolName: "Read" },
  );
}
