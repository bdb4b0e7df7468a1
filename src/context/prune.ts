import type { HistoryEntry, ToolResultBlock, UserContentBlock } from "../protocol/index.js";
import { estimateTextTokens } from "./token-count.js";

/** What replaces a pruned tool output; the tool_result block itself stays. */
export const PRUNED_OUTPUT_NOTE = "[output pruned to save context]";

export interface PruneOptions {
  /** Entries from this index on are left untouched (the recent tail). */
  keepFrom: number;
  /** Tool output tokens, counted back from the tail, that stay even before `keepFrom`. */
  protectTokens: number;
  /** Outputs smaller than this stay: pruning them saves little and loses detail. Default 50. */
  minimumTokens?: number;
}

export interface PruneResult {
  history: HistoryEntry[];
  /** How many tool outputs were replaced by the note. */
  pruned: number;
  /** Estimated tokens saved. */
  savedTokens: number;
}

/**
 * Replace the content of old tool_result blocks with a short note, newest kept first. The
 * blocks (ids, `is_error`) stay, so every tool_use keeps its answer and the history stays
 * valid. Entries are copied, never mutated: the loop and its prompt cache hold the originals.
 */
export function pruneToolOutputs(history: readonly HistoryEntry[], options: PruneOptions): PruneResult {
  const minimum = options.minimumTokens ?? 50;
  const out = [...history];
  let protectedTokens = 0;
  let pruned = 0;
  let savedTokens = 0;
  for (let index = Math.min(options.keepFrom, history.length) - 1; index >= 0; index--) {
    const entry = history[index];
    if (entry?.role !== "user" || typeof entry.content === "string") continue;
    let changed = false;
    const content: UserContentBlock[] = [...entry.content];
    for (let at = content.length - 1; at >= 0; at--) {
      const block = content[at];
      if (block?.type !== "tool_result" || isPruned(block)) continue;
      const tokens = resultTokens(block);
      if (protectedTokens + tokens <= options.protectTokens) {
        protectedTokens += tokens;
        continue;
      }
      protectedTokens = options.protectTokens;
      if (tokens < minimum) continue;
      content[at] = { ...block, content: PRUNED_OUTPUT_NOTE };
      savedTokens += tokens - estimateTextTokens(PRUNED_OUTPUT_NOTE);
      pruned++;
      changed = true;
    }
    if (changed) out[index] = { role: "user", content };
  }
  return { history: out, pruned, savedTokens };
}

function isPruned(block: ToolResultBlock): boolean {
  return block.content === PRUNED_OUTPUT_NOTE;
}

function resultTokens(block: ToolResultBlock): number {
  if (typeof block.content === "string") return estimateTextTokens(block.content);
  let tokens = 0;
  for (const part of block.content) tokens += part.type === "text" ? estimateTextTokens(part.text) : 1_600;
  return tokens;
}
