import type { EditorState } from "./prompt-editor.js";
import type { CommandEntry } from "./slash-commands.js";

/** What is being completed: a `/command` at the start of the prompt, or an `@path` at the cursor. */
export interface CompletionToken {
  kind: "command" | "file";
  /** Where the token starts in the text (at its `/` or `@`). */
  start: number;
  /** What is typed after the `/` or `@`, up to the cursor. */
  query: string;
}

/** One thing Tab can put in place of the token, and what the list says of it. */
export interface Suggestion {
  value: string;
  label: string;
  detail: string;
}

/** How many suggestions the list under the prompt shows. */
export const MAX_SUGGESTIONS = 8;

/** The token the cursor ends, if it is one completion knows. */
export function completionToken(state: EditorState): CompletionToken | undefined {
  const before = state.text.slice(0, state.cursor);
  const command = /^\/([\w.:-]*)$/.exec(before);
  if (command) return { kind: "command", start: 0, query: command[1] ?? "" };
  const mention = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (mention) return { kind: "file", start: before.length - (mention[1] ?? "").length - 1, query: mention[1] ?? "" };
  return undefined;
}

/**
 * Commands whose name starts with the query (then those that contain it), built-in ones
 * first; none once the query is a whole command's name (it is typed, or back from history).
 */
export function suggestCommands(query: string, entries: readonly CommandEntry[]): Suggestion[] {
  if (entries.some((entry) => entry.name === query)) return [];
  const lower = query.toLowerCase();
  const starts = entries.filter((entry) => entry.name.toLowerCase().startsWith(lower));
  const contains = entries.filter((entry) => !starts.includes(entry) && entry.name.toLowerCase().includes(lower));
  return [...starts, ...contains]
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => ({ value: `/${entry.name}`, label: `/${entry.name}`, detail: entry.description }));
}

/**
 * Paths (files, and folders ending in `/`) for an `@` query: those starting with it first,
 * then those whose file name starts with it, then those containing it; shorter paths first
 * within each group, so `@src` offers `src/` before what is deep inside it.
 */
export function suggestPaths(query: string, paths: readonly string[]): Suggestion[] {
  const lower = query.toLowerCase();
  const rank = (path: string): number => {
    const candidate = path.toLowerCase();
    if (candidate.startsWith(lower)) return 0;
    const name = candidate.replace(/\/$/, "").split("/").pop() ?? "";
    if (name.startsWith(lower)) return 1;
    return candidate.includes(lower) ? 2 : -1;
  };
  const ranked: Array<{ path: string; rank: number }> = [];
  for (const path of paths) {
    if (path === query) continue;
    const r = rank(path);
    if (r >= 0) ranked.push({ path, rank: r });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return ranked.slice(0, MAX_SUGGESTIONS).map(({ path }) => ({
    value: `@${path}`,
    label: `@${path}`,
    detail: path.endsWith("/") ? "folder" : "",
  }));
}

/**
 * The prompt with the token replaced by the chosen suggestion; a space follows a command or
 * a file (not a folder, whose completion goes on inside it).
 */
export function applySuggestion(state: EditorState, token: CompletionToken, suggestion: Suggestion): EditorState {
  const space = suggestion.value.endsWith("/") ? "" : " ";
  const after = state.text.slice(state.cursor);
  const inserted = suggestion.value + (after.startsWith(" ") ? "" : space);
  const text = state.text.slice(0, token.start) + inserted + after;
  return { text, cursor: token.start + inserted.length };
}
