import { z } from "zod";
import { ResultSubtype, StopReason, TerminalReason, Usage } from "../protocol/index.js";
import { Part } from "./parts.js";
import { SessionStatus } from "./session-status.js";

/** Times are milliseconds since the epoch throughout. */
export const SessionInfo = z.object({
  id: z.string(),
  cwd: z.string(),
  /** The project the session belongs to: listing and `continue` go by it (default: `cwd`). */
  project: z.string(),
  /** The title set with `renameSession`, else the start of the first user prompt. */
  title: z.string().nullable(),
  /** The model of the latest model call (or of the `init` message). */
  model: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The session this one was forked from, or whose subagent ran in it (see `parentToolUseId`). */
  parentId: z.string().nullable(),
  /**
   * Set on a subagent's session: the id of the parent's Agent call that started it. A fork
   * has a `parentId` and no `parentToolUseId`.
   */
  parentToolUseId: z.string().nullable(),
  /** The uuid of the last message copied from the parent. */
  forkedFromMessage: z.string().nullable(),
  /** Stored SDKMessages (`stream_event`s are not stored). */
  messageCount: z.number().int(),
  costUsd: z.number(),
  tokens: Usage,
  /** Runs closed by a `result` message. */
  runs: z.number().int(),
  /** Model calls of those runs (the sum of their results' `num_turns`). */
  turns: z.number().int(),
  lastResult: z.object({ subtype: ResultSubtype, terminalReason: TerminalReason, isError: z.boolean() }).nullable(),
  /**
   * What the session is doing: `busy` from a run's first message to its `result`, `retry` while
   * it waits to resend a model request. A run whose process died reads `busy` until another run
   * of the session ends.
   */
  status: SessionStatus,
});
export type SessionInfo = z.infer<typeof SessionInfo>;

export const CreateSessionInput = z.object({
  /** Use this id (e.g. the loop's `session_id`); default a new UUID. */
  id: z.string().min(1).optional(),
  cwd: z.string(),
  /** The project the session belongs to (default `cwd`); the loop gives the real path of its cwd. */
  project: z.string().optional(),
  title: z.string().optional(),
  model: z.string().optional(),
  parentId: z.string().optional(),
  /** Makes the session a subagent's: the parent's Agent call (`parentId` names the parent). */
  parentToolUseId: z.string().optional(),
  forkedFromMessage: z.string().optional(),
});
export type CreateSessionInput = z.infer<typeof CreateSessionInput>;

/** A user or assistant message derived from the stream, without its parts. */
export const MessageInfo = z.object({
  id: z.string(),
  sessionId: z.string(),
  role: z.enum(["user", "assistant"]),
  /** The uuid of the SDKMessage this row was derived from. */
  sdkUuid: z.string(),
  /** The previous derived message in the session (null for the first). */
  parentId: z.string().nullable(),
  /** Set on a subagent's messages: the Task call that started it. */
  parentToolUseId: z.string().nullable(),
  createdAt: z.number(),
  completedAt: z.number().nullable(),
  model: z.string().nullable(),
  costUsd: z.number(),
  tokens: Usage,
  finishReason: StopReason.nullable(),
  error: z.string().nullable(),
  /** An assistant message's agent (a subagent's type, the agent a handoff gave the run to); absent for the main thread as itself. */
  agent: z.string().optional(),
  /** Where the run worked: its `cwd` and the project's root (as OpenCode's messages say). */
  path: z.object({ cwd: z.string(), root: z.string() }).optional(),
  /** An assistant message's model as its provider and its id there (`model` is the id the provider answered with). */
  providerId: z.string().optional(),
  modelId: z.string().optional(),
  /** Of the output tokens, those spent reasoning, where the provider reports them. */
  reasoningTokens: z.number().int().nonnegative().optional(),
});
export type MessageInfo = z.infer<typeof MessageInfo>;

export const StoredMessage = MessageInfo.extend({ parts: z.array(Part) });
export type StoredMessage = z.infer<typeof StoredMessage>;

/** A file's content before a message's turn changed it; `null` means it did not exist. */
export interface FileCheckpoint {
  messageUuid: string;
  filePath: string;
  contentBefore: Buffer | null;
  createdAt: number;
}
