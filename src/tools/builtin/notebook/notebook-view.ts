import type { ImageBlock, TextBlock } from "../../../protocol/index.js";
import { cellId, joinText, type Notebook, type NotebookCell, notebookLanguage } from "./notebook-format.js";

/** Characters of one output shown to the model; the rest is cut with a note. */
const MAX_OUTPUT_CHARS = 10_000;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
const ANSI = /\u001b\[[0-9;]*m/g;

/** What Read shows of one cell (`tool_use_result`), after Claude Code's notebook cells. */
export interface NotebookCellView {
  cellType: string;
  source: string;
  cell_id: string;
  language?: string;
  execution_count?: number;
  outputs?: Array<{ output_type: string; text?: string; image?: { image_data: string; media_type: string } }>;
}

/**
 * A notebook as the model reads it, as Claude Code shows one: each cell in a `<cell id="…">`
 * element (its type when not code, its language when not Python), then its outputs: text as
 * text, images as image blocks.
 */
export function notebookContent(notebook: Notebook): {
  content: Array<TextBlock | ImageBlock>;
  cells: NotebookCellView[];
} {
  const language = notebookLanguage(notebook);
  const content: Array<TextBlock | ImageBlock> = [];
  const text = (value: string) => {
    const last = content.at(-1);
    if (last?.type === "text") last.text += value;
    else content.push({ type: "text", text: value });
  };
  const cells = notebook.cells.map((cell, index) => {
    const view = cellView(cell, index, language);
    const type = view.cellType === "code" ? "" : `<cell_type>${view.cellType}</cell_type>`;
    const lang = view.cellType === "code" && language !== "python" ? `<language>${language}</language>` : "";
    text(`<cell id="${view.cell_id}">${type}${lang}${view.source}</cell id="${view.cell_id}">\n`);
    for (const output of view.outputs ?? []) {
      if (output.text) text(`${output.text}\n`);
      if (output.image) {
        content.push({
          type: "image",
          source: {
            type: "base64",
            media_type: output.image.media_type as ImageBlock["source"]["media_type"],
            data: output.image.image_data,
          },
        });
      }
    }
    return view;
  });
  return { content, cells };
}

function cellView(cell: NotebookCell, index: number, language: string): NotebookCellView {
  const view: NotebookCellView = {
    cellType: cell.cell_type,
    source: joinText(cell.source),
    cell_id: cellId(cell, index),
  };
  if (cell.cell_type !== "code") return view;
  view.language = language;
  if (typeof cell.execution_count === "number") view.execution_count = cell.execution_count;
  const outputs = (cell.outputs ?? []).map(outputView);
  if (outputs.length > 0) view.outputs = outputs;
  return view;
}

function outputView(
  output: { output_type: string } & Record<string, unknown>,
): NonNullable<NotebookCellView["outputs"]>[number] {
  switch (output.output_type) {
    case "stream":
      return { output_type: "stream", text: cut(joinText(output.text)) };
    case "execute_result":
    case "display_data": {
      const data = (output.data ?? {}) as Record<string, unknown>;
      const mediaType = IMAGE_TYPES.find((type) => typeof data[type] === "string");
      const text = cut(joinText(data["text/plain"]));
      return {
        output_type: output.output_type,
        ...(text !== "" && { text }),
        ...(mediaType && {
          image: { image_data: (data[mediaType] as string).replace(/\s/g, ""), media_type: mediaType },
        }),
      };
    }
    case "error": {
      const traceback = Array.isArray(output.traceback) ? output.traceback.join("\n") : "";
      const text = `${String(output.ename)}: ${String(output.evalue)}\n${traceback}`.replace(ANSI, "");
      return { output_type: "error", text: cut(text) };
    }
    default:
      return { output_type: output.output_type };
  }
}

function cut(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_OUTPUT_CHARS)}\n… (${text.length - MAX_OUTPUT_CHARS} more characters of this output not shown)`;
}
