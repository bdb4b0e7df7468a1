import type { JsonObject, ProviderOptions } from "../model/index.js";
import type { AssistantContentBlock, HistoryEntry, UserContentBlock } from "../protocol/index.js";
import { userBlocks } from "./history.js";

export interface AnthropicServerCompactionOptions {
  /** Input tokens at which Anthropic compacts. Anthropic's default applies when unset. */
  triggerTokens?: number;
  /** Replaces Anthropic's default summary instructions. */
  instructions?: string;
  /** Stop the response right after the compaction block (stop reason `pause_turn`). */
  pauseAfterCompaction?: boolean;
}

/**
 * Provider options that switch on Anthropic's server-side compaction (`context_management`
 * edit `compact_20260112`; `@ai-sdk/anthropic` adds the `compact-2026-01-12` and
 * `context-management-2025-06-27` betas). Merge them into the call's `providerOptions`.
 *
 * The response then carries a `compaction` block, which `@ai-sdk/anthropic` streams as a text
 * part with provider metadata `{ anthropic: { type: "compaction" } }`; the loop's assembler
 * keeps it as a text block's `provider_metadata`, and `toPrompt` sends it back as a
 * `compaction` block, which is what Anthropic needs (it drops what came before it).
 */
export function anthropicServerCompaction(options: AnthropicServerCompactionOptions = {}): ProviderOptions {
  const edit: JsonObject = { type: "compact_20260112" };
  if (options.triggerTokens !== undefined) edit.trigger = { type: "input_tokens", value: options.triggerTokens };
  if (options.instructions !== undefined) edit.instructions = options.instructions;
  if (options.pauseAfterCompaction !== undefined) edit.pauseAfterCompaction = options.pauseAfterCompaction;
  return { anthropic: { contextManagement: { edits: [edit] } } };
}

/** Whether a content block is an Anthropic server-side compaction block (kept as text). */
export function isServerCompactionBlock(block: AssistantContentBlock): boolean {
  return block.type === "text" && block.provider_metadata?.anthropic?.type === "compaction";
}

const COMPACTED_PROMPT = "(The conversation so far was compacted by the provider.)";

/**
 * The history a run keeps once the provider compacted it (an answer that starts with a
 * compaction block): Anthropic drops everything before that block, so only the first prompt is
 * kept, without tool results, in front of the answer (recorded after it) to keep the
 * conversation valid where a provider needs a user turn first.
 */
export function serverCompactedHistory(history: readonly HistoryEntry[]): HistoryEntry[] {
  const first = history[0];
  const kept: UserContentBlock[] =
    first?.role === "user" ? userBlocks(first).filter((block) => block.type !== "tool_result") : [];
  return [{ role: "user", content: kept.length > 0 ? kept : [{ type: "text", text: COMPACTED_PROMPT }] }];
}

/**
 * Merge provider options per provider, `extra` winning on conflicts, so compaction options
 * can be added to the user's own `providerOptions` without dropping them.
 */
export function mergeProviderOptions(
  base: ProviderOptions | undefined,
  extra: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (!extra) return base;
  if (!base) return extra;
  const out: ProviderOptions = { ...base };
  for (const [provider, values] of Object.entries(extra)) out[provider] = { ...out[provider], ...values };
  return out;
}
