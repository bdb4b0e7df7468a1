import type {
  AssistantContentBlock,
  SDKAssistantMessage,
  SDKMessage,
  ToolUseBlock,
  UserContentBlock,
} from "../protocol/index.js";
import type { ResolvedModel } from "../model/index.js";
import type { LoopConfig, LoopState } from "./loop-state.js";

// Every message that joins the history goes through here, so the history the model sees
// and the messages the caller (and the session store) sees cannot drift apart.

/** Records an answer of `model` (default: the run's current model), costed at its prices. */
export function recordAssistant(
  config: LoopConfig,
  state: LoopState,
  message: SDKAssistantMessage["message"],
  error?: string,
  model: ResolvedModel = config.model,
): SDKAssistantMessage {
  const cost = config.costs.add(model.id, message.usage, model.info);
  state.history.push({ role: "assistant", message });
  state.lastAssistant = message;
  const extra: Partial<SDKAssistantMessage> = { cost_usd: cost };
  if (error !== undefined) extra.error = error;
  return config.stamp.assistant(message, extra);
}

export function recordUser(
  config: LoopConfig,
  state: LoopState,
  content: UserContentBlock[],
  data: unknown,
): SDKMessage {
  state.history.push({ role: "user", content });
  return config.stamp.user(
    content,
    data === undefined ? { isSynthetic: true } : { isSynthetic: true, tool_use_result: data },
  );
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

export function finalText(state: LoopState): string {
  const content = state.lastAssistant?.content ?? [];
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
