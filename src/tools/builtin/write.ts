import { z } from "zod";
import { GyreError } from "../../errors/index.js";
import { realTargetOf } from "../../files/index.js";
import { defineTool } from "../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../tool.js";
import { assertUnchangedSinceRead, recordFileState } from "./file-state.js";
import { resolveToolPath } from "./paths.js";
import { fileAccessError } from "./paths-errors.js";
import { describeFormat } from "./read-encoding.js";
import {
  encodeTextFile,
  loadTextFile,
  NEW_FILE_FORMAT,
  openExistingFile,
  type TextFileFormat,
  writeAndSnapshot,
} from "./write-text-file.js";

export const WriteInput = z.object({
  file_path: z.string().describe("The absolute path to the file to write (must be absolute, not relative)"),
  content: z.string().describe("The content to write to the file"),
});
export type WriteInput = z.infer<typeof WriteInput>;

const DESCRIPTION = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first.
- Parent folders are created as needed.
- An existing file keeps its encoding and line endings (LF or CRLF); new files are UTF-8.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.`;

/**
 * The Claude Code compatible `Write` tool: creates a file (and its folders) or replaces an
 * existing one that this session has read and that has not changed on disk since.
 */
export function writeTool(): Tool<WriteInput> {
  return defineTool({
    name: "Write",
    description: DESCRIPTION,
    inputSchema: WriteInput,
    sideEffect: "mutating",
    execute: (input, context) => writeForModel(input, context),
  });
}

async function writeForModel(input: WriteInput, context: ToolContext): Promise<ToolResult> {
  const path = resolveToolPath(input.file_path, context.cwd, "Write");
  try {
    // The file the permission check approved, else where the path leads now: read and written
    // exactly there, through its folder held open (a folder swapped meanwhile is refused).
    const realPath = context.files?.approvedPath ?? (await realTargetOf(path));
    const existing = await openExistingFile(realPath, path, "Write");
    let format = NEW_FILE_FORMAT;
    if (existing) {
      try {
        await assertUnchangedSinceRead(context.session, realPath, "Write", existing);
        format = (await loadTextFile(existing, realPath, "Write"))?.format ?? NEW_FILE_FORMAT;
      } finally {
        await existing.handle.close();
      }
    }
    const { bytes, savedAs } = encodeForWrite(input.content, format);
    const written = await writeAndSnapshot(realPath, bytes, {
      toolName: "Write",
      displayPath: path,
      createFolders: !existing,
    });
    recordFileState(context.session, realPath, written);
    const lines = countLines(input.content);
    const data = {
      type: existing ? "update" : "create",
      filePath: path,
      encoding: describeFormat(savedAs),
      lines,
    };
    const wrote = `Wrote ${lines} ${lines === 1 ? "line" : "lines"}.`;
    if (!existing) return { content: `File created successfully at: ${path}. ${wrote}`, data };
    const note =
      savedAs === format ? "" : ` It was saved as UTF-8: ${describeFormat(format)} cannot hold all of the content.`;
    return { content: `The file ${path} has been updated successfully. ${wrote}${note}`, data };
  } catch (error) {
    throw await fileAccessError(error, path, context.cwd, "Write", "write");
  }
}

/**
 * The lines in `content` as an editor counts them: every line break ends one, and text after
 * the last break is one more (`"a\nb\n"` and `"a\nb"` are 2 lines, `""` is 0).
 */
export function countLines(content: string): number {
  if (content === "") return 0;
  const breaks = content.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /[\r\n]$/.test(content) ? breaks : breaks + 1;
}

/** Encode in the file's own format; content that format cannot hold is saved as UTF-8 instead. */
function encodeForWrite(content: string, format: TextFileFormat): { bytes: Buffer; savedAs: TextFileFormat } {
  const encoded = encodeTextFile(content, format);
  if (encoded.ok) return { bytes: encoded.bytes, savedAs: format };
  const savedAs: TextFileFormat = { ...format, encoding: "utf8", bom: false };
  const fallback = encodeTextFile(content, savedAs);
  if (!fallback.ok) throw new GyreError("internal_error", "UTF-8 could not encode the content.");
  return { bytes: fallback.bytes, savedAs };
}
