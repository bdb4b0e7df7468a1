import type { HistoryEntry } from "../protocol/index.js";

export const TOOL_SEARCH_TOOL_NAME = "ToolSearch";

/**
 * One loaded tool as a ToolSearch result lists it: a `<function>` line of JSON, as Claude
 * Code's result encodes its matches. `<` is escaped (`\u003c`, still the same JSON), so that a
 * description cannot end the line's tag early and make the line name another tool.
 */
export function functionLine(tool: { name: string; description: string }): string {
  const json = JSON.stringify({ description: tool.description, name: tool.name }).replaceAll("<", "\\u003c");
  return `<function>${json}</function>`;
}

const LINE = /^<function>(.*)<\/function>$/gm;

/**
 * The tools the history's ToolSearch calls loaded: the names listed in their successful results.
 * Derived from the history each time, so a resumed session has the tools its calls loaded and a
 * compacted one has lost those its summary dropped (the model loads them again when it calls them).
 */
export function loadedToolNames(history: readonly HistoryEntry[]): Set<string> {
  const searches = new Set<string>();
  const names = new Set<string>();
  for (const entry of history) {
    if (entry.role === "assistant") {
      for (const block of entry.message.content)
        if (block.type === "tool_use" && block.name === TOOL_SEARCH_TOOL_NAME) searches.add(block.id);
      continue;
    }
    if (typeof entry.content === "string" || searches.size === 0) continue;
    for (const block of entry.content) {
      if (block.type !== "tool_result" || block.is_error || !searches.has(block.tool_use_id)) continue;
      const text =
        typeof block.content === "string"
          ? block.content
          : block.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
      for (const match of text.matchAll(LINE)) {
        const name = nameOf(match[1] ?? "");
        if (name !== undefined) names.add(name);
      }
    }
  }
  return names;
}

function nameOf(json: string): string | undefined {
  try {
    const value = JSON.parse(json) as { name?: unknown };
    return typeof value.name === "string" ? value.name : undefined;
  } catch {
    return undefined;
  }
}
