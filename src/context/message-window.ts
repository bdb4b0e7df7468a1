import type { HistoryEntry } from "../protocol/index.js";
import { toolResults, type UserEntry } from "./history.js";

/**
 * The history a model request carries under `maxMessages`: the newest entries, at most
 * `maxMessages` of them, cut where no tool_result loses its tool_use. The cut is at a person's
 * message (a user entry with no tool results) when one is near enough; otherwise it is at an
 * assistant entry, and the latest person's message before it is kept in front so that the
 * model still sees what it was asked (and the history starts with a user entry). When the
 * newest entries hold no such place, the window reaches back to the newest assistant entry: a
 * tool_use and its tool_result are never parted, even at the cost of the count. The history
 * itself is not changed: the session keeps every message.
 */
export function messageWindow(history: readonly HistoryEntry[], maxMessages: number): readonly HistoryEntry[] {
  if (history.length <= maxMessages) return history;
  const earliest = history.length - maxMessages;
  for (let index = earliest; index < history.length; index++) {
    const entry = history[index]!;
    if (entry.role === "user" && isPersonMessage(entry)) return history.slice(index);
    if (entry.role === "assistant" && index > earliest) return withPrompt(history, index);
  }
  for (let index = earliest; index > 0; index--)
    if (history[index]?.role === "assistant") return withPrompt(history, index);
  return history;
}

/** `history` from the assistant entry at `start`, after the latest person's message before it. */
function withPrompt(history: readonly HistoryEntry[], start: number): readonly HistoryEntry[] {
  for (let index = start - 1; index >= 0; index--) {
    const entry = history[index]!;
    if (entry.role === "user" && isPersonMessage(entry)) return [entry, ...history.slice(start)];
  }
  return history;
}

function isPersonMessage(entry: UserEntry): boolean {
  return toolResults(entry).length === 0;
}
