import { z } from "zod";
import { addUsage, emptyUsage, ResultSubtype, TerminalReason, Usage } from "../protocol/index.js";
import type { IdPrefix } from "./ids.js";
import { type Part, PatchPart, SubtaskPart, ToolPart } from "./parts.js";
import type { MessageInfo, SessionInfo } from "./types.js";
import { IDLE, SessionStatus } from "./session-status.js";

const Totals = z.object({ costUsd: z.number(), tokens: Usage });
type Totals = z.infer<typeof Totals>;

/**
 * What `applyMessage` needs to remember between messages of one session. It is plain
 * JSON, so stores keep it in the session row and any process (or server instance) can
 * continue a session where another left off.
 */
export const DeriveState = z.object({
  messageCount: z.number().int(),
  /** The last derived message: the parent of the next one. */
  lastMessageId: z.string().nullable(),
  /** When the previous message arrived; the next model call started about then. */
  lastMessageAt: z.number().nullable(),
  /** Tool calls still waiting for a result, by `tool_use` id. */
  openTools: z.record(z.string(), ToolPart),
  /** Patch parts of messages that still have open tool calls, by message id. */
  patches: z.record(z.string(), PatchPart),
  /** Subtask parts of Agent calls still open, by `tool_use` id (absent in states stored before). */
  openSubtasks: z.record(z.string(), SubtaskPart).default({}),
  /**
   * The calls the last run paused on (`requires_action`): open, but waiting for the caller.
   * Any other call still open when a new run starts died with the process that ran it.
   */
  waiting: z.array(z.string()).default([]),
  model: z.string().nullable(),
  /** What the session is doing (absent in states stored before: idle). */
  status: SessionStatus.optional(),
  /** Where the runs work, from the last `init` (absent in states stored before). */
  path: z.object({ cwd: z.string(), root: z.string() }).optional(),
  derivedTitle: z.string().nullable(),
  /** Totals of runs closed by a `result`, and of the run in progress. */
  closed: Totals,
  run: Totals,
  runs: z.number().int(),
  /** Model calls of the runs closed by a `result` (their `num_turns`; absent in states stored before: 0). */
  turns: z.number().int().optional(),
  lastResult: z.object({ subtype: ResultSubtype, terminalReason: TerminalReason, isError: z.boolean() }).nullable(),
});
export type DeriveState = z.infer<typeof DeriveState>;

/** Time and ids come from outside so the reducer stays pure. */
export interface DeriveContext {
  sessionId: string;
  now: number;
  newId: (prefix: IdPrefix) => string;
}

/** What one message changed: rows to insert or replace, by id. */
export interface DeriveResult {
  state: DeriveState;
  messages: MessageInfo[];
  parts: Part[];
}

export function initialDeriveState(model: string | null = null): DeriveState {
  const zero = (): Totals => ({ costUsd: 0, tokens: emptyUsage() });
  return {
    messageCount: 0,
    lastMessageId: null,
    lastMessageAt: null,
    openTools: {},
    patches: {},
    openSubtasks: {},
    waiting: [],
    model,
    derivedTitle: null,
    closed: zero(),
    run: zero(),
    runs: 0,
    turns: 0,
    lastResult: null,
  };
}

/** The session fields that follow from the stream. */
export type DerivedSessionFields = Pick<
  SessionInfo,
  "model" | "messageCount" | "costUsd" | "tokens" | "runs" | "turns" | "lastResult" | "status"
> & { derivedTitle: string | null };

export function derivedSessionFields(state: DeriveState): DerivedSessionFields {
  return {
    model: state.model,
    messageCount: state.messageCount,
    costUsd: state.closed.costUsd + state.run.costUsd,
    tokens: addUsage(state.closed.tokens, state.run.tokens),
    runs: state.runs,
    turns: state.turns ?? 0,
    lastResult: state.lastResult,
    status: state.status ?? IDLE,
    derivedTitle: state.derivedTitle,
  };
}
