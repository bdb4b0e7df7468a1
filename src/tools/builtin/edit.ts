import { z } from "zod";
import { GyreError } from "../../errors/index.js";
import { realTargetOf } from "../../files/index.js";
import { defineTool } from "../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../tool.js";
import { editSnippet, replaceExact } from "./edit-replace.js";
import { assertUnchangedSinceRead, type OpenedFile, recordFileState } from "./file-state.js";
import { resolveToolPath } from "./paths.js";
import { fileAccessError } from "./paths-errors.js";
import {
  encodeTextFile,
  type LoadedTextFile,
  loadTextFile,
  NEW_FILE_FORMAT,
  openExistingFile,
  unencodableError,
  writeAndSnapshot,
} from "./write-text-file.js";

export const EditInput = z.object({
  file_path: z.string().describe("The absolute path to the file to modify"),
  old_string: z.string().describe("The text to replace"),
  new_string: z.string().describe("The text to replace it with (must be different from old_string)"),
  replace_all: z.boolean().default(false).describe("Replace all occurrences of old_string (default false)"),
});
export type EditInput = z.infer<typeof EditInput>;

const DESCRIPTION = `Performs exact string replacements in files.

Usage:
- You must use your Read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- The file's encoding, byte order mark, line endings (LF or CRLF) and final newline are kept.`;

/**
 * The Claude Code compatible `Edit` tool: exact string replacement in a file this session
 * has read and that has not changed on disk since, keeping its encoding and line endings.
 * An empty `old_string` creates a file that does not exist yet (or fills an empty one).
 */
export function editTool(): Tool<EditInput> {
  return defineTool({
    name: "Edit",
    description: DESCRIPTION,
    inputSchema: EditInput,
    sideEffect: "mutating",
    execute: (input, context) => editForModel(input, context),
  });
}

async function editForModel(input: EditInput, context: ToolContext): Promise<ToolResult> {
  const path = resolveToolPath(input.file_path, context.cwd, "Edit");
  if (input.old_string === input.new_string) {
    throw editError("No changes to make: old_string and new_string are exactly the same.");
  }
  try {
    // The file the permission check approved, else where the path leads now: both halves, the
    // read and the write, go exactly there through its folder held open (see openVerified).
    const realPath = context.files?.approvedPath ?? (await realTargetOf(path));
    const existing = await openExistingFile(realPath, path, "Edit");
    if (!existing) {
      if (input.old_string !== "") throw Object.assign(new Error(`${path} does not exist`), { code: "ENOENT" });
      return await createWithEdit(path, realPath, input.new_string, context);
    }
    const file = await loadForEdit(existing, realPath, path, context);
    const edited = applyEdit(file, input, path);
    const encoded = encodeTextFile(edited.text, file.format);
    if (!encoded.ok) throw unencodableError(path, file.format, encoded.character, "Edit");
    const written = await writeAndSnapshot(realPath, encoded.bytes, { toolName: "Edit", displayPath: path });
    recordFileState(context.session, realPath, written);
    const data = { filePath: path, replacements: edited.count };
    if (input.replace_all) {
      return {
        content: `The file ${path} has been updated. All ${edited.count} occurrences of old_string were replaced with new_string.`,
        data,
      };
    }
    const snippet = editSnippet(edited.text, edited.firstIndex, edited.inserted);
    return {
      content: `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
      data,
    };
  } catch (error) {
    throw await fileAccessError(error, path, context.cwd, "Edit", "write");
  }
}

/** The file's text, once it is known this session read it as it is now (closes `existing`). */
async function loadForEdit(
  existing: OpenedFile,
  realPath: string,
  path: string,
  context: ToolContext,
): Promise<LoadedTextFile> {
  try {
    await assertUnchangedSinceRead(context.session, realPath, "Edit", existing);
    const file = await loadTextFile(existing, realPath, "Edit");
    if (!file) throw editError(`${path} is a binary file; Edit changes text files only.`);
    return file;
  } finally {
    await existing.handle.close();
  }
}

/** The new text of the file; the strings are matched with the file's line breaks as `\n`. */
function applyEdit(file: LoadedTextFile, input: EditInput, path: string) {
  const crlf = file.format.lineEnding === "crlf";
  const oldString = crlf ? input.old_string.replaceAll("\r\n", "\n") : input.old_string;
  const newString = crlf ? input.new_string.replaceAll("\r\n", "\n") : input.new_string;
  if (oldString === "") {
    if (file.text.trim() !== "") {
      throw editError(`Cannot create new file - file already exists: ${path}. Give old_string to edit it.`);
    }
    return { text: newString, count: 1, firstIndex: 0, inserted: newString };
  }
  const result = replaceExact(file.text, oldString, newString, input.replace_all);
  if (result.ok) return { ...result, inserted: newString };
  if (result.reason === "not_found") {
    throw editError(
      `String to replace not found in file ${path}. old_string must match the file exactly, ` +
        `including whitespace and indentation; Read the file again if unsure.\nString: ${input.old_string}`,
    );
  }
  throw editError(
    `Found ${result.count} matches of the string to replace, but replace_all is false. To replace all ` +
      "occurrences, set replace_all to true. To replace only one occurrence, please provide more context " +
      `to uniquely identify the instance.\nString: ${input.old_string}`,
  );
}

async function createWithEdit(
  path: string,
  realPath: string,
  content: string,
  context: ToolContext,
): Promise<ToolResult> {
  const encoded = encodeTextFile(content, NEW_FILE_FORMAT);
  if (!encoded.ok) throw unencodableError(path, NEW_FILE_FORMAT, encoded.character, "Edit");
  const written = await writeAndSnapshot(realPath, encoded.bytes, {
    toolName: "Edit",
    displayPath: path,
    createFolders: true,
  });
  recordFileState(context.session, realPath, written);
  return { content: `File created successfully at: ${path}`, data: { filePath: path, replacements: 0 } };
}

function editError(message: string): GyreError {
  return new GyreError("tool_error", message, { toolName: "Edit" });
}
