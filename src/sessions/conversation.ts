import { randomUUID } from "node:crypto";
import type {
  SDKAssistantMessage,
  SDKMessage,
  SDKUserMessage,
  ToolResultBlock,
  UserContentBlock,
} from "../protocol/index.js";

export type ConversationMessage = SDKUserMessage | SDKAssistantMessage;

export interface ConversationOptions {
  /** New uuids for synthetic messages (default `crypto.randomUUID`). */
  newUuid?: () => string;
  /**
   * Calls a paused run waits on (`pending_tool_calls`): left without a result, because the
   * caller is about to answer them.
   */
  pending?: ReadonlySet<string>;
}

/** The result the model sees for a call that never returned (the process died mid-tool). */
export const INTERRUPTED_TOOL_RESULT =
  "Tool call was interrupted (session was aborted) before it returned a result. " +
  "The tool may or may not have run; check its effects before running it again.";

/**
 * The history to send to the model when a session is resumed: the top-level user and
 * assistant messages after the last compaction, made valid for every provider.
 *
 * - Each assistant message's `tool_use` calls are answered by the user message right after
 *   it, tool results first, in call order. Results found in later user messages are moved
 *   there; calls without any result get a synthetic `is_error` result
 *   ({@link INTERRUPTED_TOOL_RESULT}), in a new synthetic user message when needed.
 * - Results for calls the preceding assistant message did not make are dropped, as are
 *   user messages left empty by that, and assistant messages with no content (a model call
 *   cut before any output). A cut assistant message with content is kept as it is.
 * - Subagent messages (`parent_tool_use_id` set) are not part of the parent's history.
 */
export function conversationFromMessages(
  messages: readonly SDKMessage[],
  options: ConversationOptions = {},
): ConversationMessage[] {
  const newUuid = options.newUuid ?? randomUUID;
  const turns = splitTurns(sinceLastCompaction(messages));
  const out: ConversationMessage[] = [];
  for (const turn of turns) {
    if (turn.assistant) out.push(turn.assistant);
    const users = answerCalls(turn, newUuid, options.pending);
    out.push(...users);
  }
  return out;
}

function sinceLastCompaction(messages: readonly SDKMessage[]): ConversationMessage[] {
  let start = 0;
  messages.forEach((message, index) => {
    if (message.type === "system" && message.subtype === "compact_boundary") start = index + 1;
  });
  return messages
    .slice(start)
    .filter(
      (message): message is ConversationMessage =>
        (message.type === "user" || message.type === "assistant") &&
        message.parent_tool_use_id === null &&
        !isIgnored(message),
    );
}

/** A user message kept but never sent to the model (one that answers calls is never ignored). */
function isIgnored(message: SDKMessage): boolean {
  if (message.type !== "user" || message.ignored !== true) return false;
  const { content } = message.message;
  return typeof content === "string" || !content.some((block) => block.type === "tool_result");
}

/** An assistant message (none for the leading user messages) and the user messages after it. */
interface Turn {
  assistant: SDKAssistantMessage | undefined;
  users: SDKUserMessage[];
}

function splitTurns(messages: ConversationMessage[]): Turn[] {
  const turns: Turn[] = [{ assistant: undefined, users: [] }];
  for (const message of messages) {
    if (message.type === "user") {
      turns[turns.length - 1]!.users.push(message);
    } else if (message.message.content.length > 0) {
      turns.push({ assistant: message, users: [] });
    }
  }
  return turns;
}

function answerCalls(turn: Turn, newUuid: () => string, pending?: ReadonlySet<string>): SDKUserMessage[] {
  const calls =
    turn.assistant?.message.content.flatMap((block) =>
      block.type === "tool_use" && !pending?.has(block.id) ? [block.id] : [],
    ) ?? [];
  const found = new Map<string, ToolResultBlock>();
  const rest = turn.users.map((user) => {
    const content = user.message.content;
    if (typeof content === "string") return { user, blocks: [{ type: "text", text: content }] as UserContentBlock[] };
    const blocks = content.filter((block) => {
      if (block.type !== "tool_result") return true;
      if (calls.includes(block.tool_use_id) && !found.has(block.tool_use_id)) found.set(block.tool_use_id, block);
      return false;
    });
    return { user, blocks };
  });
  if (calls.length === 0) return rest.filter((entry) => entry.blocks.length > 0).map(withBlocks);

  const results: ToolResultBlock[] = calls.map(
    (id) =>
      found.get(id) ?? {
        type: "tool_result",
        tool_use_id: id,
        content: INTERRUPTED_TOOL_RESULT,
        is_error: true,
      },
  );
  const [first, ...later] = rest;
  const answer: SDKUserMessage = first
    ? withBlocks({ user: first.user, blocks: [...results, ...first.blocks] })
    : {
        type: "user",
        uuid: newUuid(),
        session_id: turn.assistant!.session_id,
        message: { role: "user", content: results },
        parent_tool_use_id: null,
        isSynthetic: true,
      };
  return [answer, ...later.filter((entry) => entry.blocks.length > 0).map(withBlocks)];
}

function withBlocks(entry: { user: SDKUserMessage; blocks: UserContentBlock[] }): SDKUserMessage {
  const original = entry.user.message.content;
  const unchanged =
    typeof original === "string"
      ? entry.blocks.length === 1 && entry.blocks[0]?.type === "text" && entry.blocks[0].text === original
      : original.length === entry.blocks.length && original.every((block, i) => block === entry.blocks[i]);
  if (unchanged) return entry.user;
  return { ...entry.user, message: { role: "user", content: entry.blocks } };
}
