import type {
  AssistantContentBlock,
  SDKAssistantMessage,
  SDKMessage,
  ToolUseBlock,
  UserContentBlock,
} from "../protocol/index.js";
import type { Model } from "../model/index.js";
import type { RunContext } from "./run-context.js";
import type { RunState } from "./run-state.js";

// Every message that joins the history goes through here, so the history the model sees
// and the messages the caller (and the session store) sees cannot drift apart.

/** Records an answer of `model`, costed at its prices. */
export function recordAssistant(
  context: RunContext,
  state: RunState,
  model: Model,
  message: SDKAssistantMessage["message"],
  error?: string,
): SDKAssistantMessage {
  const cost = state.costs.add(model.id, message.usage, model.info);
  state.history.push({ role: "assistant", message });
  state.lastAssistant = message;
  // No cost_usd for a model without a price: absent says "unknown", where 0 would say "free".
  const extra: Partial<SDKAssistantMessage> = cost === undefined ? {} : { cost_usd: cost };
  if (error !== undefined) extra.error = error;
  extra.provider = model.provider;
  if (state.snapshot !== undefined) extra.snapshot = state.snapshot;
  const agent = state.activeAgent?.name ?? context.agent?.type;
  if (agent !== undefined) extra.agent = agent;
  return context.stamp.assistant(message, extra);
}

/** Records a user turn the loop produced (tool results, reminders): synthetic, with tool data for callers. */
export function recordUser(
  context: RunContext,
  state: RunState,
  content: UserContentBlock[],
  data?: Record<string, unknown>,
): SDKMessage {
  state.history.push({ role: "user", content });
  const hasData = data !== undefined && Object.keys(data).length > 0;
  return context.stamp.user(content, hasData ? { isSynthetic: true, tool_use_result: data } : { isSynthetic: true });
}

/** Records a user turn of plain text the loop adds (continue, reminders, a Stop hook's reason). */
export function recordText(context: RunContext, state: RunState, text: string): SDKMessage {
  return recordUser(context, state, [{ type: "text", text }]);
}

export function toolUses(content: readonly AssistantContentBlock[]): ToolUseBlock[] {
  return content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

/** Results for calls that will not run, so every tool_use keeps its tool_result. */
export function unanswered(calls: readonly ToolUseBlock[], why: string): UserContentBlock[] {
  return calls.map((call) => ({
    type: "tool_result",
    tool_use_id: call.id,
    content: `Error: ${call.name} was not run because ${why}.`,
    is_error: true,
  }));
}
