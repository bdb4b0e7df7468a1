import type { PendingToolCall, SDKMessage } from "../protocol/index.js";
import { emptyUsage } from "../protocol/index.js";
import type { SessionStore } from "../sessions/index.js";
import type { Turn } from "./conversation.js";

export interface SeedInput {
  store: SessionStore;
  session: { id: string; cwd: string; project: string; model: string };
  turns: readonly Turn[];
  pending: readonly PendingToolCall[];
  newId: () => string;
}

/**
 * Writes a client's conversation as a session the loop resumes: its turns as user and
 * assistant messages, and, when the last answer made calls the client now answers, a
 * `requires_action` result listing them (the state a paused run leaves).
 */
export async function seedSession(input: SeedInput): Promise<void> {
  const messages = input.turns.map((turn) => message(input, turn));
  if (input.pending.length > 0) messages.push(pauseResult(input));
  await input.store.createSession(input.session, messages);
}

function message(input: SeedInput, turn: Turn): SDKMessage {
  const base = { uuid: input.newId(), session_id: input.session.id, parent_tool_use_id: null };
  if (turn.role === "user") return { type: "user", ...base, message: { role: "user", content: turn.content } };
  const calls = turn.content.some((block) => block.type === "tool_use");
  return {
    type: "assistant",
    ...base,
    message: {
      id: `msg_${input.newId()}`,
      type: "message",
      role: "assistant",
      model: input.session.model,
      content: turn.content,
      stop_reason: calls ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: emptyUsage(),
    },
  };
}

function pauseResult(input: SeedInput): SDKMessage {
  return {
    type: "result",
    subtype: "success",
    uuid: input.newId(),
    session_id: input.session.id,
    is_error: false,
    num_turns: 0,
    duration_ms: 0,
    duration_api_ms: 0,
    total_cost_usd: 0,
    usage: emptyUsage(),
    modelUsage: {},
    result: "",
    stop_reason: "tool_use",
    permission_denials: [],
    terminal_reason: "requires_action",
    pending_tool_calls: [...input.pending],
  };
}
