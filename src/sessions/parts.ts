import { z } from "zod";
import { StopReason, Usage } from "../protocol/index.js";

/**
 * Parts are the pieces of a stored message, derived from the SDKMessage stream (see
 * `applyMessage`). Times are milliseconds since the epoch. Parts of one message sort by id.
 */
const PartBase = { id: z.string(), messageId: z.string(), sessionId: z.string() };

export const TextPart = z.object({
  ...PartBase,
  type: z.literal("text"),
  text: z.string(),
  /** True for text Gyre wrote itself (continuation prompts, synthetic user messages). */
  synthetic: z.boolean().optional(),
  /** True for text kept in the session but never sent to the model (a user message marked `ignored`). */
  ignored: z.boolean().optional(),
});
export type TextPart = z.infer<typeof TextPart>;

/**
 * A file the user gave: an `attachment` (an image block of the prompt), or a file or folder the
 * prompt `mention`ed (`@path`, whose contents the prompt carries after it).
 */
export const FilePart = z.object({
  ...PartBase,
  type: z.literal("file"),
  source: z.enum(["attachment", "mention"]),
  mime: z.string(),
  /** A mention's path, as the prompt named it (relative to the working directory). */
  filename: z.string().optional(),
});
export type FilePart = z.infer<typeof FilePart>;

/**
 * The workspace's snapshot (the `snapshots` option): on an assistant message, as its step
 * started; on a run's last message, as the run ended. A step changed what differs between its
 * snapshot and the next one (`WorkspaceSnapshots.changes` / `diff`; `restore` puts files back).
 */
export const SnapshotPart = z.object({ ...PartBase, type: z.literal("snapshot"), snapshot: z.string() });
export type SnapshotPart = z.infer<typeof SnapshotPart>;

/** Which agent spoke: a subagent's type, or the agent the main thread runs as or was handed to. */
export const AgentPart = z.object({ ...PartBase, type: z.literal("agent"), name: z.string() });
export type AgentPart = z.infer<typeof AgentPart>;

export const ReasoningPart = z.object({
  ...PartBase,
  type: z.literal("reasoning"),
  text: z.string(),
  /** The provider returned the reasoning encrypted; `text` is empty. */
  redacted: z.boolean(),
});
export type ReasoningPart = z.infer<typeof ReasoningPart>;

/**
 * What a call that ran says about itself, as OpenCode's tool parts: its `title` (what it is
 * about, from the message it started with) and `metadata` (the tool's latest progress report);
 * Gyre adds `permission`, why it was allowed to run (the rule or mode, a hook, an answer).
 */
const Described = {
  title: z.string().optional(),
  metadata: z.unknown().optional(),
  permission: z.string().optional(),
};

/**
 * A tool call's life: `pending → running → completed | error`. A call that never ran (invalid
 * input, denied, answered by the caller) goes from pending to its end, with both times its end.
 */
export const ToolState = z.discriminatedUnion("status", [
  z.object({ status: z.literal("pending"), input: z.unknown() }),
  z.object({ status: z.literal("running"), input: z.unknown(), startedAt: z.number(), ...Described }),
  z.object({
    status: z.literal("completed"),
    input: z.unknown(),
    /** The result text the model saw (images are noted as `[image: type]`). */
    output: z.string(),
    startedAt: z.number(),
    endedAt: z.number(),
    ...Described,
  }),
  z.object({
    status: z.literal("error"),
    input: z.unknown(),
    error: z.string(),
    startedAt: z.number(),
    endedAt: z.number(),
    ...Described,
  }),
]);
export type ToolState = z.infer<typeof ToolState>;

export const ToolPart = z.object({
  ...PartBase,
  type: z.literal("tool"),
  /** The `tool_use` block id. */
  callId: z.string(),
  tool: z.string(),
  state: ToolState,
});
export type ToolPart = z.infer<typeof ToolPart>;

/** A model call began (the time the request went out, as near as the stream tells). */
export const StepStartPart = z.object({ ...PartBase, type: z.literal("step-start"), time: z.number() });
export type StepStartPart = z.infer<typeof StepStartPart>;

/** A model call ended: what it cost and why it stopped. */
export const StepFinishPart = z.object({
  ...PartBase,
  type: z.literal("step-finish"),
  time: z.number(),
  costUsd: z.number(),
  tokens: Usage,
  finishReason: StopReason.nullable(),
});
export type StepFinishPart = z.infer<typeof StepFinishPart>;

/** The history before this point was summarized (`compact_boundary`). */
export const CompactionPart = z.object({
  ...PartBase,
  type: z.literal("compaction"),
  trigger: z.enum(["manual", "auto"]),
  preTokens: z.number(),
  postTokens: z.number().nullable(),
});
export type CompactionPart = z.infer<typeof CompactionPart>;

/** How a subagent's run went, as its Agent call's subtask part tells. */
export const SubtaskStatus = z.enum(["running", "completed", "error", "interrupted"]);
export type SubtaskStatus = z.infer<typeof SubtaskStatus>;

/**
 * A subagent was started with the Agent (formerly Task) tool. Its transcript is a session of
 * its own (`childSessionId`, whose `parentToolUseId` is `callId`); sessions stored before
 * Gyre kept them apart hold the subagent's messages inline, with `parentToolUseId = callId`.
 */
export const SubtaskPart = z.object({
  ...PartBase,
  type: z.literal("subtask"),
  callId: z.string(),
  description: z.string(),
  prompt: z.string(),
  agent: z.string().nullable(),
  /** The subagent's session; null until it started, and when the run kept no session. */
  childSessionId: z.string().nullable(),
  /** `running` from the call on; `interrupted` when the run died before the call returned. */
  status: SubtaskStatus,
  /** What the subagent spent (its model calls and its own subagents'); null until it returned. */
  costUsd: z.number().nullable(),
});
export type SubtaskPart = z.infer<typeof SubtaskPart>;

/** Files this step changed: Write/Edit-style calls whose results were not errors. */
export const PatchPart = z.object({ ...PartBase, type: z.literal("patch"), files: z.array(z.string()) });
export type PatchPart = z.infer<typeof PatchPart>;

export const Part = z.discriminatedUnion("type", [
  TextPart,
  FilePart,
  AgentPart,
  SnapshotPart,
  ReasoningPart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  CompactionPart,
  SubtaskPart,
  PatchPart,
]);
export type Part = z.infer<typeof Part>;
