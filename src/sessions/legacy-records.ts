import type { SDKMessage } from "../protocol/index.js";
import type { ConversationRecord, RecordEvent, RecordItem, ResponseRecord } from "./records.js";

// How `gyre serve` kept its records before they had tables of their own (SQLite schema 4,
// PostgreSQL 3): a response or a conversation was a session of its own id, in the project
// `gyre-serve:<owner>`, whose messages were synthetic user messages carrying a payload in
// `tool_use_result`. The migrations read that layout once with what is here, and only they do.

/** The sessions that may hold a record, as SQL: ids the server issued, in a serve project. */
export const LEGACY_RECORD_SESSIONS =
  "project LIKE 'gyre-serve:%' AND (id LIKE 'resp\\_%' ESCAPE '\\' OR id LIKE 'conv\\_%' ESCAPE '\\')";

/** A response as the old layout kept it: its latest version. */
export interface LegacyResponse {
  kind: "response";
  record: ResponseRecord;
  inputItems: RecordItem[];
  events: RecordEvent[];
}

/** A conversation as the old layout kept it: its changes replayed. */
export interface LegacyConversation {
  kind: "conversation";
  record: ConversationRecord;
  items: RecordItem[];
}

interface OldResponse {
  owner: string;
  response: Record<string, unknown> & { status: string };
  inputItems: RecordItem[];
  runSessionId: string;
  events?: RecordEvent[];
}

type OldChange =
  | { created: { owner: string; conversation: Record<string, unknown> } }
  | { items: RecordItem[] }
  | { removed: string }
  | { metadata: Record<string, string> };

/** The record the old layout kept in session `id`, or undefined when it holds none (not one of the server's). */
export function legacyRecord(
  id: string,
  messages: readonly SDKMessage[],
): LegacyResponse | LegacyConversation | undefined {
  if (/^resp_[0-9a-f]{32}$/.test(id)) return legacyResponse(id, messages);
  if (/^conv_[0-9a-f]{32}$/.test(id)) return legacyConversation(id, messages);
  return undefined;
}

function legacyResponse(id: string, messages: readonly SDKMessage[]): LegacyResponse | undefined {
  const stored = payloads<{ gyre_response?: OldResponse }>(messages)
    .map((payload) => payload.gyre_response)
    .findLast((response) => response !== undefined);
  if (!stored) return undefined;
  const { owner, response, runSessionId } = stored;
  return {
    kind: "response",
    record: { id, owner, status: response.status, runSessionId, data: response },
    inputItems: stored.inputItems,
    events: stored.events ?? [],
  };
}

function legacyConversation(id: string, messages: readonly SDKMessage[]): LegacyConversation | undefined {
  let stored: LegacyConversation | undefined;
  for (const payload of payloads<{ gyre_conversation?: OldChange }>(messages)) {
    const change = payload.gyre_conversation;
    if (!change) continue;
    if ("created" in change) {
      const { owner, conversation } = change.created;
      stored = { kind: "conversation", record: { id, owner, data: conversation }, items: [] };
    } else if (!stored) continue;
    else if ("items" in change) stored.items.push(...change.items);
    else if ("removed" in change) stored.items = stored.items.filter((item) => item.id !== change.removed);
    else stored.record.data = { ...stored.record.data, metadata: change.metadata };
  }
  return stored;
}

/** The payloads of the session's synthetic user messages, in order. */
function payloads<T>(messages: readonly SDKMessage[]): T[] {
  return messages.flatMap((message) =>
    message.type === "user" && message.isSynthetic && typeof message.tool_use_result === "object"
      ? [message.tool_use_result as T]
      : [],
  );
}
