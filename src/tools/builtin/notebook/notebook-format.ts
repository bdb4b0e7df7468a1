import { z } from "zod";

/** A cell's source or an output's text: nbformat allows one string or a list of lines. */
const MultilineText = z.union([z.string(), z.array(z.string())]);

/** One cell of a notebook (nbformat 4), loosely: fields Gyre does not use are kept as they are. */
export const NotebookCell = z.looseObject({
  cell_type: z.string(),
  id: z.string().optional(),
  source: MultilineText,
  metadata: z.record(z.string(), z.unknown()).optional(),
  outputs: z.array(z.looseObject({ output_type: z.string() })).optional(),
  execution_count: z.number().nullable().optional(),
});
export type NotebookCell = z.infer<typeof NotebookCell>;

/** A Jupyter notebook (nbformat 4), loosely. */
export const Notebook = z.looseObject({
  cells: z.array(NotebookCell),
  metadata: z.record(z.string(), z.unknown()).optional(),
  nbformat: z.number().optional(),
  nbformat_minor: z.number().optional(),
});
export type Notebook = z.infer<typeof Notebook>;

/** A notebook parsed from its text, or undefined when the text is not one. */
export function parseNotebook(text: string): Notebook | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = Notebook.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** Joined text of a source or an output field. */
export function joinText(text: unknown): string {
  if (typeof text === "string") return text;
  return Array.isArray(text) ? text.filter((line) => typeof line === "string").join("") : "";
}

/** Text as Jupyter saves it: a list of lines, each but the last ending in `\n`. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  return text.split(/(?<=\n)/);
}

/** The id the model names a cell by: its own `id`, else `cell-<index>` (notebooks before nbformat 4.5 have none). */
export function cellId(cell: NotebookCell, index: number): string {
  return cell.id ?? `cell-${index}`;
}

/** The index of the cell `id` names (its `id`, or `cell-<index>`), or -1. */
export function findCell(notebook: Notebook, id: string): number {
  const byId = notebook.cells.findIndex((cell) => cell.id === id);
  if (byId >= 0) return byId;
  const numbered = /^cell-(\d+)$/.exec(id);
  if (!numbered) return -1;
  const index = Number(numbered[1]);
  return index < notebook.cells.length ? index : -1;
}

/** The notebook's programming language, from its metadata (Python when it says none). */
export function notebookLanguage(notebook: Notebook): string {
  const info = notebook.metadata?.language_info as { name?: unknown } | undefined;
  return typeof info?.name === "string" ? info.name : "python";
}
