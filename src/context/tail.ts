import type { HistoryEntry } from "../protocol/index.js";
import { estimateEntryTokens } from "./token-count.js";

export interface TailOptions {
  /** Assistant turns to keep at most. */
  turns: number;
  /** Estimated tokens the tail may hold; the newest turn is kept even when it is bigger. */
  maxTokens: number;
}

/**
 * Where the kept recent tail starts: always at an assistant entry (index > 0), so the tail
 * never begins with a tool_result whose tool_use was cut off, and everything after that
 * entry is kept. Returns `history.length` when no turn is kept.
 */
export function tailStart(history: readonly HistoryEntry[], options: TailOptions): number {
  let start = history.length;
  let tokens = 0;
  let turns = 0;
  for (let index = history.length - 1; index > 0; index--) {
    const entry = history[index];
    if (!entry) continue;
    tokens += estimateEntryTokens(entry);
    if (entry.role !== "assistant") continue;
    if (turns >= options.turns) break;
    if (turns > 0 && tokens > options.maxTokens) break;
    turns++;
    start = index;
  }
  return start;
}
