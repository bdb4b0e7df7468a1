import type { UserContentBlock } from "./content.js";
import type { APIAssistantMessage } from "./messages/index.js";

/**
 * One entry of the conversation a run keeps and sends to the model: Anthropic-shaped user
 * and assistant turns. The loop appends to it, compaction rewrites it, `Model.stream` reads it.
 */
export type HistoryEntry =
  { role: "user"; content: string | UserContentBlock[] } | { role: "assistant"; message: APIAssistantMessage };
