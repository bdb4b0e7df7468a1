import { SummaryCompactor } from "../context/index.js";
import { CostTracker } from "../model/index.js";
import { emptyUsage, type HistoryEntry } from "../protocol/index.js";
import { compactionContent } from "./compaction-item.js";
import { toTurns, type Turn } from "./conversation.js";
import { RequestError } from "./errors.js";
import { chainItems, inputItems, previousNotFound } from "./input-items.js";
import type { CompactRequest } from "./request-schema.js";
import { responseUsage, type ResponseUsage } from "./response-object.js";
import { newId } from "./ids.js";
import type { RunDependencies } from "./run-dependencies.js";

/** What `POST /v1/responses/compact` answers: the compacted window, to pass as the next input. */
export interface CompactResource {
  id: string;
  object: "response.compaction";
  created_at: number;
  output: Array<{ type: "compaction"; id: string; encrypted_content: string; created_by: string }>;
  usage: ResponseUsage;
}

/**
 * Compacts a conversation (the chain of `previous_response_id` and the request's input) with
 * Gyre's compactor: everything after the first user message is summarized by the model, and
 * the result comes back as one `compaction` item that a later request takes as input.
 */
export async function compactConversation(
  deps: RunDependencies,
  request: CompactRequest,
  owner: string,
  signal: AbortSignal,
): Promise<CompactResource> {
  let earlier: Awaited<ReturnType<typeof chainItems>> = [];
  if (request.previous_response_id) {
    const previous = await deps.responses.get(request.previous_response_id);
    if (!previous || previous.owner !== owner) throw previousNotFound(request.previous_response_id);
    earlier = await chainItems(deps.responses, previous);
  }
  const items = inputItems({ input: request.input ?? [] }, earlier, newId);
  const { system, turns } = toTurns([...earlier, ...items]);
  const history = turns.filter((turn) => turn.content.length > 0).map(historyEntry);
  if (history.length === 0)
    throw new RequestError(
      400,
      "There is nothing to compact: give input or previous_response_id.",
      "invalid_input",
      "input",
    );
  const model = await deps.resolveModel(request.model);
  const costs = new CostTracker();
  let compacted = history;
  if (history.length > 1) {
    const compactor = new SummaryCompactor({
      model,
      keepRecentTurns: 0,
      keepRecentTokens: 0,
      systemPrompt: [request.instructions ?? "", ...system].join("\n\n"),
    });
    const result = await compactor.compact(history, { trigger: "manual", signal });
    if (result.summaryUsage) costs.add(model.id, result.summaryUsage, model.info);
    compacted = result.history;
  }
  return {
    id: newId("cmp"),
    object: "response.compaction",
    created_at: Math.floor(Date.now() / 1000),
    output: [
      {
        type: "compaction",
        id: newId("cmpi"),
        encrypted_content: compactionContent(textOf(compacted)),
        created_by: "gyre",
      },
    ],
    usage: responseUsage(costs.usage, costs.totalCostUsd),
  };
}

function historyEntry(turn: Turn): HistoryEntry {
  if (turn.role === "user") return { role: "user", content: turn.content };
  return {
    role: "assistant",
    message: {
      id: newId("msg"),
      type: "message",
      role: "assistant",
      model: "",
      content: turn.content,
      stop_reason: turn.content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: emptyUsage(),
    },
  };
}

/** The compacted history's words, in order (the summary, the first request, anything kept after it). */
function textOf(history: readonly HistoryEntry[]): string {
  const parts: string[] = [];
  for (const entry of history) {
    const blocks = entry.role === "user" ? entry.content : entry.message.content;
    if (typeof blocks === "string") parts.push(blocks);
    else for (const block of blocks) if (block.type === "text") parts.push(block.text);
  }
  return parts.join("\n\n");
}
