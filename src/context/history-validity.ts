import type { HistoryEntry } from "../protocol/index.js";
import { toolResults, toolUseIds } from "./history.js";

/**
 * What makes a history unacceptable to providers, one sentence per problem; empty when valid.
 * Rules: it starts with a user entry, roles alternate, every tool_use is answered by a
 * tool_result in the very next (user) entry, and every tool_result answers a tool_use of the
 * entry just before it.
 */
export function historyProblems(history: readonly HistoryEntry[]): string[] {
  const problems: string[] = [];
  if (history.length === 0) return ["the history is empty"];
  if (history[0]?.role !== "user") problems.push("the history does not start with a user entry");
  history.forEach((entry, index) => {
    const previous = index > 0 ? history[index - 1] : undefined;
    if (previous?.role === entry.role) problems.push(`entries ${index - 1} and ${index} are both ${entry.role}`);
    if (entry.role === "assistant") {
      const next = history[index + 1];
      if (!next) return;
      const answered = new Set(next.role === "user" ? toolResults(next).map((block) => block.tool_use_id) : []);
      for (const id of toolUseIds(entry))
        if (!answered.has(id)) problems.push(`tool_use ${id} in entry ${index} has no tool_result after it`);
      return;
    }
    const calls = new Set(previous?.role === "assistant" ? toolUseIds(previous) : []);
    for (const block of toolResults(entry))
      if (!calls.has(block.tool_use_id))
        problems.push(`tool_result ${block.tool_use_id} in entry ${index} answers no tool_use just before it`);
  });
  return problems;
}

/** True when `historyProblems` finds nothing. */
export function isValidHistory(history: readonly HistoryEntry[]): boolean {
  return historyProblems(history).length === 0;
}
