import { type DiffRow, capRows, contextRows, diffLines } from "./line-diff.js";
import { type Todo, todosOf } from "./todos.js";
import type { ToolItem } from "./transcript.js";

/** What shows under a tool call's line. */
export type ToolDetail =
  | { kind: "none" }
  | { kind: "diff"; rows: DiffRow[] }
  | { kind: "todos"; todos: Todo[] }
  | { kind: "output"; lines: string[]; more: number };

/** Unchanged lines shown around each change of a diff. */
export const DIFF_CONTEXT = 3;
/** Rows of a diff shown under a collapsed call; expanded (Ctrl+O) shows up to {@link EXPANDED_ROWS}. */
export const COLLAPSED_DIFF_ROWS = 12;
/** Rows of output or diff an expanded call shows: more would bury the conversation. */
export const EXPANDED_ROWS = 500;

/**
 * What to show under a call, from its input and result: Edit, MultiEdit and Write a diff (from
 * the moment the input is known, so a call waiting for approval shows what it would change);
 * expanded, TodoWrite its list and other calls their whole output.
 */
export function toolDetail(item: ToolItem, expanded: boolean): ToolDetail {
  if (item.state !== "failed") {
    const rows = changedRows(item.name, item.input);
    if (rows) return { kind: "diff", rows: capRows(rows, expanded ? EXPANDED_ROWS : COLLAPSED_DIFF_ROWS) };
  }
  if (!expanded) return { kind: "none" };
  const todos = item.name === "TodoWrite" ? todosOf(item.input) : undefined;
  if (todos) return { kind: "todos", todos };
  const output = item.output.replace(/\n+$/, "");
  if (output === "") return { kind: "none" };
  const lines = output.split("\n");
  return { kind: "output", lines: lines.slice(0, EXPANDED_ROWS), more: Math.max(0, lines.length - EXPANDED_ROWS) };
}

/** The diff rows of a file-changing call, or undefined for other calls (or while its input is not known). */
function changedRows(name: string, input: Record<string, unknown>): DiffRow[] | undefined {
  switch (name) {
    case "Write":
      return typeof input.content === "string" ? contextRows(diffLines("", input.content), DIFF_CONTEXT) : undefined;
    case "Edit":
      return editRows(input);
    case "MultiEdit": {
      if (!Array.isArray(input.edits) || input.edits.length === 0) return undefined;
      const edits = (input.edits as unknown[]).map((edit) =>
        typeof edit === "object" && edit !== null ? editRows(edit as Record<string, unknown>) : undefined,
      );
      if (edits.some((edit) => edit === undefined)) return undefined;
      return edits.flatMap((edit, index): DiffRow[] =>
        index === 0 ? (edit ?? []) : [{ kind: "gap" }, ...(edit ?? [])],
      );
    }
    default:
      return undefined;
  }
}

function editRows(input: Record<string, unknown>): DiffRow[] | undefined {
  const before = input.old_string;
  const after = input.new_string;
  if (typeof before !== "string" || typeof after !== "string") return undefined;
  return contextRows(diffLines(before, after), DIFF_CONTEXT);
}
