import { randomUUID } from "node:crypto";
import type { SDKMessage } from "../protocol/index.js";

/**
 * How the server keeps its own records (a response's versions, a conversation's changes) in a
 * SessionStore: as synthetic user messages of the record's own session, `payload` in their
 * `tool_use_result`. Appends are what every store does atomically, on every instance.
 */
export function recordMessage(sessionId: string, payload: Record<string, unknown>): SDKMessage {
  return {
    type: "user",
    uuid: randomUUID(),
    session_id: sessionId,
    message: { role: "user", content: [] },
    parent_tool_use_id: null,
    isSynthetic: true,
    tool_use_result: payload,
  };
}
