export { NotebookEditInput, notebookEditTool } from "./notebook-edit-tool.js";
export { parseNotebook } from "./notebook-format.js";
export { type NotebookCellView, notebookContent } from "./notebook-view.js";
