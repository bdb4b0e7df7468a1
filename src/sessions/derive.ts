import { GyreError } from "../errors/index.js";
import {
  addUsage,
  emptyUsage,
  type SDKAssistantMessage,
  type SDKCompactBoundaryMessage,
  type SDKMessage,
  type SDKResultMessage,
  type SDKUserMessage,
  type ToolResultBlock,
  type UserContentBlock,
} from "../protocol/index.js";
import type { DeriveContext, DeriveResult, DeriveState } from "./derive-state.js";
import { applyToolProgress, applyToolResults } from "./derive-tools.js";
import { closeSubtasks, interruptOpenCalls, linkSubtask, waitingCalls } from "./derive-subtasks.js";
import type { FilePart, Part, SubtaskPart, ToolPart } from "./parts.js";
import type { MessageInfo } from "./types.js";
import { IDLE, nextSessionStatus } from "./session-status.js";

const TITLE_MAX_CHARS = 80;

/**
 * The one reducer from the SDKMessage stream to stored messages and parts. Pure: the same
 * state, message and context give the same result. Stores call it on every append and
 * persist exactly the rows it returns (inserted or replaced by id).
 *
 * - `assistant` → an assistant message with step-start, reasoning, text, tool (pending),
 *   subtask (Task calls) and step-finish parts;
 * - `tool_progress` → the pending tool part is running, with its start time and title, and
 *   later ones with data update its metadata (an Agent call's that names its subagent's
 *   session also links its subtask part to it);
 * - `user` → tool results complete (or fail) their tool parts and subtask parts and add
 *   patch parts; any text makes a user message (a message of only tool results makes none);
 * - `system`/`init` → a new run: calls left open by a run that died (not paused) close as
 *   interrupted;
 * - `system`/`compact_boundary` → a user message with a compaction part;
 * - `result` → closes the run: its cost and usage replace the run's running totals;
 * - `stream_event` and other system messages only count (stream events not even that).
 */
export function applyMessage(state: DeriveState, message: SDKMessage, ctx: DeriveContext): DeriveResult {
  if (message.type === "stream_event") return { state, messages: [], parts: [] };
  const counted: DeriveState = {
    ...state,
    status: nextSessionStatus(state.status ?? IDLE, message, ctx.now),
    messageCount: state.messageCount + 1,
    lastMessageAt: message.type === "tool_progress" ? state.lastMessageAt : ctx.now,
  };
  switch (message.type) {
    case "assistant":
      return applyAssistant(counted, state.lastMessageAt ?? ctx.now, message, ctx);
    case "user":
      return applyUser(counted, { ...message, uuid: storedUuid(message) }, ctx);
    case "tool_progress": {
      const running = applyToolProgress(counted, message, ctx);
      const linked = linkSubtask(running.state, message);
      return { state: linked.state, messages: [], parts: [...running.parts, ...linked.parts] };
    }
    case "result": {
      const state = { ...closeRun(counted, message), waiting: waitingCalls(message) };
      const messageId = counted.lastMessageId;
      if (message.snapshot === undefined || messageId === null) return { state, messages: [], parts: [] };
      // The workspace as the run ended: on its last message, after that message's own snapshot.
      const part: Part = {
        id: ctx.newId("prt"),
        messageId,
        sessionId: ctx.sessionId,
        type: "snapshot",
        snapshot: message.snapshot,
      };
      return { state, messages: [], parts: [part] };
    }
    case "system":
      if (message.subtype === "compact_boundary") return applyCompaction(counted, message, ctx);
      if (message.subtype === "init") {
        const path = { cwd: message.cwd, root: message.project ?? message.cwd };
        const { state: next, parts } = interruptOpenCalls({ ...counted, model: message.model, path }, ctx);
        return { state: next, messages: [], parts };
      }
      return { state: counted, messages: [], parts: [] };
  }
}

function newMessage(
  state: DeriveState,
  ctx: DeriveContext,
  fields: Pick<MessageInfo, "role" | "sdkUuid" | "parentToolUseId" | "createdAt">,
): MessageInfo {
  return {
    id: ctx.newId("msg"),
    sessionId: ctx.sessionId,
    parentId: state.lastMessageId,
    completedAt: ctx.now,
    model: null,
    costUsd: 0,
    tokens: emptyUsage(),
    finishReason: null,
    error: null,
    ...(state.path && { path: state.path }),
    ...fields,
  };
}

function applyAssistant(
  state: DeriveState,
  startedAt: number,
  message: SDKAssistantMessage,
  ctx: DeriveContext,
): DeriveResult {
  const api = message.message;
  const costUsd = message.cost_usd ?? 0;
  const row: MessageInfo = {
    ...newMessage(state, ctx, {
      role: "assistant",
      sdkUuid: message.uuid,
      parentToolUseId: message.parent_tool_use_id,
      createdAt: startedAt,
    }),
    model: api.model,
    costUsd,
    tokens: api.usage,
    finishReason: api.stop_reason,
    error: message.error ?? null,
    ...(message.agent !== undefined && { agent: message.agent }),
    ...modelOf(message, state.model),
    ...(api.usage.output_tokens_details && { reasoningTokens: api.usage.output_tokens_details.thinking_tokens }),
  };
  const base = { messageId: row.id, sessionId: ctx.sessionId };
  const parts: Part[] = [{ ...base, id: ctx.newId("prt"), type: "step-start", time: startedAt }];
  if (message.agent !== undefined) parts.push({ ...base, id: ctx.newId("prt"), type: "agent", name: message.agent });
  if (message.snapshot !== undefined)
    parts.push({ ...base, id: ctx.newId("prt"), type: "snapshot", snapshot: message.snapshot });
  const openTools = { ...state.openTools };
  const openSubtasks = { ...state.openSubtasks };
  for (const block of api.content) {
    if (block.type === "text") parts.push({ ...base, id: ctx.newId("prt"), type: "text", text: block.text });
    if (block.type === "thinking") {
      parts.push({ ...base, id: ctx.newId("prt"), type: "reasoning", text: block.thinking, redacted: false });
    }
    if (block.type === "redacted_thinking") {
      parts.push({ ...base, id: ctx.newId("prt"), type: "reasoning", text: "", redacted: true });
    }
    if (block.type === "tool_use") {
      const tool: ToolPart = {
        ...base,
        id: ctx.newId("prt"),
        type: "tool",
        callId: block.id,
        tool: block.name,
        state: { status: "pending", input: block.input },
      };
      openTools[block.id] = tool;
      parts.push(tool);
      if (block.name === "Agent" || block.name === "Task") {
        const subtask = subtaskPart(base, block.id, block.input, ctx);
        openSubtasks[block.id] = subtask;
        parts.push(subtask);
      }
    }
  }
  parts.push({
    ...base,
    id: ctx.newId("prt"),
    type: "step-finish",
    time: ctx.now,
    costUsd,
    tokens: api.usage,
    finishReason: api.stop_reason,
  });
  const run = { costUsd: state.run.costUsd + costUsd, tokens: addUsage(state.run.tokens, api.usage) };
  return {
    state: { ...state, lastMessageId: row.id, model: api.model, openTools, openSubtasks, run },
    messages: [row],
    parts,
  };
}

/** The answering model as provider and id: the message's own provider, else the session model's (`provider/id`). */
function modelOf(
  message: SDKAssistantMessage,
  sessionModel: string | null,
): Pick<MessageInfo, "providerId" | "modelId"> {
  const slash = sessionModel?.indexOf("/") ?? -1;
  const provider = message.provider ?? (slash > 0 ? sessionModel?.slice(0, slash) : undefined);
  return { modelId: message.message.model, ...(provider !== undefined && { providerId: provider }) };
}

function subtaskPart(
  base: { messageId: string; sessionId: string },
  callId: string,
  input: unknown,
  ctx: DeriveContext,
): SubtaskPart {
  const fields = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  const agent = text(fields.subagent_type);
  return {
    ...base,
    id: ctx.newId("prt"),
    type: "subtask",
    callId,
    description: text(fields.description),
    prompt: text(fields.prompt),
    agent: agent === "" ? null : agent,
    childSessionId: null,
    status: "running",
    costUsd: null,
  };
}

/**
 * A stored message's uuid. The run stamps one on every message it sends; a user message a
 * caller appends by hand must carry its own (it is how the store knows the message again).
 */
export function storedUuid(message: SDKMessage): string {
  if (message.uuid === undefined)
    throw new GyreError("session_store_error", "A user message needs its uuid to be stored in a session.");
  return message.uuid;
}

function applyUser(state: DeriveState, message: SDKUserMessage & { uuid: string }, ctx: DeriveContext): DeriveResult {
  const content = message.message.content;
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  const results = blocks.filter((block): block is ToolResultBlock => block.type === "tool_result");
  const texts = blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
  const files = fileParts(blocks);
  const tools = applyToolResults(state, results, ctx);
  const subtasks = closeSubtasks(tools.state, results, message.tool_use_result);
  const closed = { state: subtasks.state, parts: [...tools.parts, ...subtasks.parts] };
  if (texts.length === 0 && files.length === 0) return { state: closed.state, messages: [], parts: closed.parts };

  const row = newMessage(closed.state, ctx, {
    role: "user",
    sdkUuid: message.uuid,
    parentToolUseId: message.parent_tool_use_id,
    createdAt: ctx.now,
  });
  const flags = {
    ...(message.isSynthetic === true && { synthetic: true }),
    ...(message.ignored === true && results.length === 0 && { ignored: true }),
  };
  const base = { messageId: row.id, sessionId: ctx.sessionId };
  const textParts: Part[] = [
    ...texts.map((text): Part => ({ ...base, id: ctx.newId("prt"), type: "text", text, ...flags })),
    ...files.map((file): Part => ({ ...base, id: ctx.newId("prt"), ...file })),
  ];
  const isPrompt = message.isSynthetic !== true && message.parent_tool_use_id === null;
  const derivedTitle = closed.state.derivedTitle ?? (isPrompt ? titleFrom(texts.join("\n")) : null);
  return {
    state: { ...closed.state, lastMessageId: row.id, derivedTitle },
    messages: [row],
    parts: [...closed.parts, ...textParts],
  };
}

/** A mention's header, as the prompt box writes it before the file's contents or the folder's listing. */
const MENTION_HEADER = /^(?:Contents of (.+?)|Listing of the folder (.+?)\/) \(attached with @/;

/** The files a user message gives: its images (attachments) and the `@` mentions whose contents it carries. */
function fileParts(blocks: readonly UserContentBlock[]): Omit<FilePart, "id" | "messageId" | "sessionId">[] {
  return blocks.flatMap((block): Omit<FilePart, "id" | "messageId" | "sessionId">[] => {
    if (block.type === "image") return [{ type: "file", source: "attachment", mime: block.source.media_type }];
    if (block.type !== "text") return [];
    const mention = MENTION_HEADER.exec(block.text);
    if (!mention) return [];
    const folder = mention[2];
    return [
      folder !== undefined
        ? { type: "file", source: "mention", mime: "inode/directory", filename: folder }
        : { type: "file", source: "mention", mime: "text/plain", filename: mention[1] ?? "" },
    ];
  });
}

function titleFrom(text: string): string | null {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  if (line === "") return null;
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}

function applyCompaction(state: DeriveState, message: SDKCompactBoundaryMessage, ctx: DeriveContext): DeriveResult {
  const row = newMessage(state, ctx, {
    role: "user",
    sdkUuid: message.uuid,
    parentToolUseId: null,
    createdAt: ctx.now,
  });
  const meta = message.compact_metadata;
  const part: Part = {
    id: ctx.newId("prt"),
    messageId: row.id,
    sessionId: ctx.sessionId,
    type: "compaction",
    trigger: meta.trigger,
    preTokens: meta.pre_tokens,
    postTokens: meta.post_tokens ?? null,
  };
  return { state: { ...state, lastMessageId: row.id }, messages: [row], parts: [part] };
}

function closeRun(state: DeriveState, result: SDKResultMessage): DeriveState {
  return {
    ...state,
    closed: {
      costUsd: state.closed.costUsd + result.total_cost_usd,
      tokens: addUsage(state.closed.tokens, result.usage),
    },
    run: { costUsd: 0, tokens: emptyUsage() },
    runs: state.runs + 1,
    turns: (state.turns ?? 0) + result.num_turns,
    lastResult: { subtype: result.subtype, terminalReason: result.terminal_reason, isError: result.is_error },
  };
}
