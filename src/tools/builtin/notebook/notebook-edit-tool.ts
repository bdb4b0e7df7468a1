import { randomBytes } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { GyreError } from "../../../errors/index.js";
import { realTargetOf } from "../../../files/index.js";
import { defineTool } from "../../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../../tool.js";
import { assertUnchangedSinceRead, recordFileState } from "../file-state.js";
import { fileAccessError } from "../paths-errors.js";
import {
  encodeTextFile,
  loadTextFile,
  openExistingFile,
  unencodableError,
  writeAndSnapshot,
} from "../write-text-file.js";
import {
  cellId,
  findCell,
  joinText,
  type Notebook,
  type NotebookCell,
  notebookLanguage,
  parseNotebook,
  splitLines,
} from "./notebook-format.js";

/** NotebookEdit input, as in Claude Code. */
export const NotebookEditInput = z.strictObject({
  notebook_path: z
    .string()
    .describe("The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"),
  cell_id: z
    .string()
    .optional()
    .describe(
      "The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified.",
    ),
  new_source: z.string().describe("The new source for the cell"),
  cell_type: z
    .enum(["code", "markdown"])
    .optional()
    .describe(
      "The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required.",
    ),
  edit_mode: z
    .enum(["replace", "insert", "delete"])
    .optional()
    .describe("The type of edit to make (replace, insert, delete). Defaults to replace."),
});
export type NotebookEditInput = z.infer<typeof NotebookEditInput>;

const DESCRIPTION = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

Usage:
- Read the notebook first: this tool fails on a notebook not read in this conversation, or changed since.
- notebook_path must be an absolute path.
- cell_id names the cell: the id Read shows (\`<cell id="...">\`); cells without one are \`cell-<index>\`, counting from 0.
- edit_mode=replace (default) replaces the cell's source; a code cell's outputs and execution count are cleared.
- edit_mode=insert adds a new cell after cell_id (at the start without one); cell_type is required.
- edit_mode=delete removes the cell.`;

/** NotebookEdit (Claude Code compatible): one cell of a notebook this session has read, written atomically. */
export function notebookEditTool(): Tool<NotebookEditInput> {
  return defineTool({
    name: "NotebookEdit",
    description: DESCRIPTION,
    inputSchema: NotebookEditInput,
    sideEffect: "mutating",
    execute: (input, context) => editNotebook(input, context),
  });
}

async function editNotebook(input: NotebookEditInput, context: ToolContext): Promise<ToolResult> {
  if (!path.isAbsolute(input.notebook_path)) throw notebookError("notebook_path must be an absolute path.");
  const shown = input.notebook_path;
  if (path.extname(shown).toLowerCase() !== ".ipynb") {
    throw notebookError(`${shown} is not a Jupyter notebook (.ipynb file). Use Edit for other files.`);
  }
  try {
    const realPath = context.files?.approvedPath ?? (await realTargetOf(shown));
    const existing = await openExistingFile(realPath, shown, "NotebookEdit");
    if (!existing) throw Object.assign(new Error(`${shown} does not exist`), { code: "ENOENT" });
    let loaded;
    try {
      await assertUnchangedSinceRead(context.session, realPath, "NotebookEdit", existing);
      loaded = await loadTextFile(existing, realPath, "NotebookEdit");
    } finally {
      await existing.handle.close();
    }
    const notebook = loaded && parseNotebook(loaded.text);
    if (!loaded || !notebook)
      throw notebookError(`${shown} is not a valid notebook: its JSON does not parse as nbformat 4.`);
    const edit = applyCellEdit(notebook, input);
    const text = `${JSON.stringify(notebook, null, indentOf(loaded.text))}\n`;
    const encoded = encodeTextFile(text, loaded.format);
    if (!encoded.ok) throw unencodableError(shown, loaded.format, encoded.character, "NotebookEdit");
    const written = await writeAndSnapshot(realPath, encoded.bytes, { toolName: "NotebookEdit", displayPath: shown });
    recordFileState(context.session, realPath, written);
    const data = {
      new_source: input.new_source,
      ...(edit.oldSource !== undefined && { old_source: edit.oldSource }),
      cell_id: edit.cellId,
      cell_type: edit.cellType,
      language: notebookLanguage(notebook),
      edit_mode: edit.mode,
      notebook_path: shown,
      original_file: loaded.text,
      updated_file: text,
    };
    return { content: edit.message, data };
  } catch (error) {
    throw await fileAccessError(error, shown, context.cwd, "NotebookEdit", "write");
  }
}

interface CellEdit {
  mode: "replace" | "insert" | "delete";
  cellId: string;
  cellType: "code" | "markdown";
  oldSource?: string;
  message: string;
}

/** Changes `notebook` in place as `input` says. */
function applyCellEdit(notebook: Notebook, input: NotebookEditInput): CellEdit {
  const mode = input.edit_mode ?? "replace";
  const index = input.cell_id === undefined ? -1 : findCell(notebook, input.cell_id);
  if (input.cell_id !== undefined && index < 0) {
    throw notebookError(`Cell with ID "${input.cell_id}" not found in the notebook.`);
  }
  if (mode === "insert") {
    if (input.cell_type === undefined) throw notebookError("cell_type is required when edit_mode is insert.");
    const cell = newCell(notebook, input.cell_type, input.new_source);
    notebook.cells.splice(index + 1, 0, cell);
    const id = cellId(cell, index + 1);
    return { mode, cellId: id, cellType: input.cell_type, message: `Inserted cell ${id} with ${input.new_source}` };
  }
  if (input.cell_id === undefined) throw notebookError(`cell_id is required when edit_mode is ${mode}.`);
  const cell = notebook.cells[index]!;
  const oldSource = joinText(cell.source);
  const cellType = (input.cell_type ?? (cell.cell_type === "markdown" ? "markdown" : "code")) as CellEdit["cellType"];
  if (mode === "delete") {
    notebook.cells.splice(index, 1);
    return { mode, cellId: input.cell_id, cellType, oldSource, message: `Deleted cell ${input.cell_id}` };
  }
  cell.source = splitLines(input.new_source);
  setType(cell, cellType);
  // The outputs were of the old source: kept, they would claim it produced them.
  if (cell.cell_type === "code") {
    cell.outputs = [];
    cell.execution_count = null;
  }
  return {
    mode,
    cellId: input.cell_id,
    cellType,
    oldSource,
    message: `Updated cell ${input.cell_id} with ${input.new_source}`,
  };
}

function newCell(notebook: Notebook, type: "code" | "markdown", source: string): NotebookCell {
  // Cell ids came with nbformat 4.5; older notebooks must not get one.
  const withIds = (notebook.nbformat ?? 4) > 4 || (notebook.nbformat_minor ?? 0) >= 5;
  const cell: NotebookCell = {
    cell_type: type,
    ...(withIds && { id: randomBytes(4).toString("hex") }),
    metadata: {},
    source: splitLines(source),
  };
  if (type === "code") Object.assign(cell, { execution_count: null, outputs: [] });
  return cell;
}

function setType(cell: NotebookCell, type: "code" | "markdown"): void {
  if (cell.cell_type === type) return;
  cell.cell_type = type;
  if (type === "markdown") {
    delete cell.outputs;
    delete cell.execution_count;
  }
}

/** The indent the file uses (Jupyter writes one space), so an edit does not re-indent every line. */
function indentOf(text: string): number {
  const indent = /^\{\r?\n( +)"/.exec(text)?.[1]?.length;
  return indent ?? 1;
}

function notebookError(message: string): GyreError {
  return new GyreError("tool_error", message, { toolName: "NotebookEdit" });
}
