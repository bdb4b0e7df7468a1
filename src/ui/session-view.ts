import { isAbsolute, resolve } from "node:path";
import type { SDKMessage } from "../protocol/index.js";
import type { SessionInfo, SessionStore, StoredMessage } from "../sessions/index.js";

/** The stored messages the page shows besides the derived ones: denials, hooks, sandbox, compactions, retries, results. */
const SHOWN_SYSTEM = new Set([
  "init",
  "api_retry",
  "compact_boundary",
  "hook_response",
  "model_fallback",
  "no_tool_call",
  "handoff",
  "sandbox_violation",
  "permission_denied",
]);

/** A stored message that is not a derived one, placed after the derived message it followed. */
export interface TimelineEvent {
  /** The `sdkUuid` of the derived message stored last before it (null: before all of them). */
  after: string | null;
  message: SDKMessage;
}

/** A file's content before a Write replaced it (from the session's checkpoints), for its diff. */
export interface WriteBefore {
  callId: string;
  /** null: the file did not exist. */
  before: string | null;
  /** The content was cut at {@link MAX_BEFORE} characters, or was not text. */
  partial: boolean;
}

/** What `/api/sessions/:id` answers: everything the page shows of one session. */
export interface SessionView {
  session: SessionInfo;
  messages: StoredMessage[];
  /** Stored system messages (see SHOWN_SYSTEM) and results, in order. */
  events: TimelineEvent[];
  /** The subagents' sessions this one ran (their own subagents: ask for their views). */
  subagents: SessionInfo[];
  writes: WriteBefore[];
}

const MAX_BEFORE = 512 * 1024;

/**
 * One session as the page shows it; undefined when there is none with that id. `writes: false`
 * leaves out the contents Write calls replaced (see `UiAppOptions.fileHistory`).
 */
export async function sessionView(
  store: SessionStore,
  id: string,
  options: { writes?: boolean } = {},
): Promise<SessionView | undefined> {
  const session = await store.getSession(id);
  if (!session) return undefined;
  const [messages, raw, subagents] = await Promise.all([
    store.getMessages(id),
    store.getSessionMessages(id),
    store.listSessions({ parentId: id, subagents: "only" }),
  ]);
  const derived = new Set(messages.map((message) => message.sdkUuid));
  const events: TimelineEvent[] = [];
  let after: string | null = null;
  for (const message of raw) {
    if (derived.has(message.uuid ?? "")) after = message.uuid ?? null;
    else if (message.type === "result" || (message.type === "system" && SHOWN_SYSTEM.has(message.subtype)))
      events.push({ after, message });
  }
  const writes = options.writes === false ? [] : await writesBefore(store, session, messages, raw);
  return { session, messages, events, subagents, writes };
}

/** Each Write call's file content before it ran, from the checkpoints kept under its assistant message. */
async function writesBefore(
  store: SessionStore,
  session: SessionInfo,
  messages: StoredMessage[],
  raw: SDKMessage[],
): Promise<WriteBefore[]> {
  const calls: { callId: string; messageUuid: string; path: string }[] = [];
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type !== "tool" || part.tool !== "Write") continue;
      const path = (part.state.input as { file_path?: unknown } | null)?.file_path;
      if (typeof path !== "string") continue;
      calls.push({
        callId: part.callId,
        messageUuid: message.sdkUuid,
        path: isAbsolute(path) ? path : resolve(session.cwd, path),
      });
    }
  }
  const first = raw[0]?.uuid;
  if (calls.length === 0 || first === undefined) return [];
  const checkpoints = await store.getCheckpoints(session.id, first);
  return calls.flatMap(({ callId, messageUuid, path }): WriteBefore[] => {
    const checkpoint = checkpoints.find((c) => c.messageUuid === messageUuid && c.filePath === path);
    if (!checkpoint) return [];
    if (checkpoint.contentBefore === null) return [{ callId, before: null, partial: false }];
    const text = checkpoint.contentBefore.toString("utf8");
    const binary = text.includes("\u0000") || text.includes("\uFFFD");
    return [{ callId, before: binary ? "" : text.slice(0, MAX_BEFORE), partial: binary || text.length > MAX_BEFORE }];
  });
}
