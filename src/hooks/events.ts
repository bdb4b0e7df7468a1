import { z } from "zod";

/**
 * The hook events Gyre fires. Names and input fields follow Claude Code hooks and the
 * Claude Agent SDK, so existing hook scripts and `options.hooks` callbacks run unchanged.
 */
export const HookEventName = z.enum([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "Notification",
  "PermissionRequest",
]);
export type HookEventName = z.infer<typeof HookEventName>;

/** Fields every hook input carries; the runner fills them. */
export const BaseHookInput = z.object({
  session_id: z.string(),
  transcript_path: z.string(),
  cwd: z.string(),
  permission_mode: z.string().optional(),
});
export type BaseHookInput = z.infer<typeof BaseHookInput>;

const toolFields = {
  tool_name: z.string(),
  tool_input: z.unknown(),
  /** For a tool of an MCP server (`mcp__<server>__<tool>`): the server's name in `mcpServers`. */
  mcp_server: z.string().optional(),
};

export const PreToolUseHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("PreToolUse"),
  ...toolFields,
  tool_use_id: z.string(),
});
export type PreToolUseHookInput = z.infer<typeof PreToolUseHookInput>;

export const PostToolUseHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("PostToolUse"),
  ...toolFields,
  tool_response: z.unknown(),
  tool_use_id: z.string(),
});
export type PostToolUseHookInput = z.infer<typeof PostToolUseHookInput>;

export const PostToolUseFailureHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("PostToolUseFailure"),
  ...toolFields,
  tool_use_id: z.string(),
  error: z.string(),
  is_interrupt: z.boolean().optional(),
});
export type PostToolUseFailureHookInput = z.infer<typeof PostToolUseFailureHookInput>;

export const PermissionRequestHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("PermissionRequest"),
  ...toolFields,
  permission_suggestions: z.array(z.unknown()).optional(),
});
export type PermissionRequestHookInput = z.infer<typeof PermissionRequestHookInput>;

export const UserPromptSubmitHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("UserPromptSubmit"),
  prompt: z.string(),
});
export type UserPromptSubmitHookInput = z.infer<typeof UserPromptSubmitHookInput>;

export const SessionStartHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("SessionStart"),
  source: z.enum(["startup", "resume", "clear", "compact"]),
  model: z.string().optional(),
  agent_type: z.string().optional(),
});
export type SessionStartHookInput = z.infer<typeof SessionStartHookInput>;

export const SessionEndHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("SessionEnd"),
  /** Claude Code sends `clear`, `logout`, `prompt_input_exit`, `bypass_permissions_disabled` or `other`. */
  reason: z.string(),
});
export type SessionEndHookInput = z.infer<typeof SessionEndHookInput>;

export const StopHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("Stop"),
  /** True when the agent is already continuing because a Stop hook blocked; check it to avoid loops. */
  stop_hook_active: z.boolean(),
  last_assistant_message: z.string().optional(),
});
export type StopHookInput = z.infer<typeof StopHookInput>;

/** A subagent is about to start (the `Agent` tool); `additionalContext` is added to its prompt. */
export const SubagentStartHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("SubagentStart"),
  agent_id: z.string(),
  agent_type: z.string(),
});
export type SubagentStartHookInput = z.infer<typeof SubagentStartHookInput>;

export const SubagentStopHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("SubagentStop"),
  stop_hook_active: z.boolean(),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  agent_transcript_path: z.string().optional(),
  last_assistant_message: z.string().optional(),
});
export type SubagentStopHookInput = z.infer<typeof SubagentStopHookInput>;

const CompactTrigger = z.enum(["manual", "auto"]);

export const PreCompactHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("PreCompact"),
  trigger: CompactTrigger,
  /** What the user typed after `/compact`; null for automatic compaction. */
  custom_instructions: z.string().nullable(),
});
export type PreCompactHookInput = z.infer<typeof PreCompactHookInput>;

export const PostCompactHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("PostCompact"),
  trigger: CompactTrigger,
  compact_summary: z.string().optional(),
});
export type PostCompactHookInput = z.infer<typeof PostCompactHookInput>;

export const NotificationHookInput = BaseHookInput.extend({
  hook_event_name: z.literal("Notification"),
  message: z.string(),
  title: z.string().optional(),
  notification_type: z.string().optional(),
});
export type NotificationHookInput = z.infer<typeof NotificationHookInput>;

/** Any hook input, discriminated on `hook_event_name`. */
export const HookInput = z.discriminatedUnion("hook_event_name", [
  PreToolUseHookInput,
  PostToolUseHookInput,
  PostToolUseFailureHookInput,
  PermissionRequestHookInput,
  UserPromptSubmitHookInput,
  SessionStartHookInput,
  SessionEndHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  PreCompactHookInput,
  PostCompactHookInput,
  NotificationHookInput,
]);
export type HookInput = z.infer<typeof HookInput>;

/** The input type of one event. */
export type HookInputFor<E extends HookEventName> = Extract<HookInput, { hook_event_name: E }>;

/**
 * What the caller passes to `HookRunner.run`: the event's own fields. The common fields
 * (`session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`) are
 * filled by the runner and may be overridden here.
 */
export type HookEventFields<E extends HookEventName> = Omit<HookInputFor<E>, keyof BaseHookInput | "hook_event_name"> &
  Partial<BaseHookInput>;

/**
 * The input field a matcher is tested against, per event (Claude Code's rule). Events
 * without one (UserPromptSubmit, Stop) run every configured hook whatever the matcher.
 */
export const MATCH_FIELD: Partial<Record<HookEventName, string>> = {
  PreToolUse: "tool_name",
  PostToolUse: "tool_name",
  PostToolUseFailure: "tool_name",
  PermissionRequest: "tool_name",
  SessionStart: "source",
  SessionEnd: "reason",
  SubagentStart: "agent_type",
  SubagentStop: "agent_type",
  PreCompact: "trigger",
  PostCompact: "trigger",
  Notification: "notification_type",
};
