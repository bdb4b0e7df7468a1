import { randomUUID } from "node:crypto";
import { isGyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { SessionStore } from "../sessions/index.js";

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

/**
 * A record's messages, or undefined when its session does not exist: also when it is deleted
 * while read (another instance's delete between two queries is not a 500).
 */
export async function recordMessages(sessions: SessionStore, id: string): Promise<SDKMessage[] | undefined> {
  try {
    return await sessions.getSessionMessages(id);
  } catch (error) {
    if (isGyreError(error, "session_not_found")) return undefined;
    throw error;
  }
}
