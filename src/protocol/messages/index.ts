import { z } from "zod";
import { ApiUsageExtras } from "../api-shapes.js";
import { AssistantContentBlock, StopReason, Usage, UserContentBlock } from "../content.js";
import { ApiKeySource, PermissionMode, ResultSubtype, TerminalReason } from "../enums.js";

/**
 * The one message model. Field names follow the Claude Agent SDK's `SDKMessage` so a
 * program that consumes those messages consumes ours. Every message has `uuid` and
 * `session_id`; the CLI's stream-json, the server's SSE and the session store are all
 * projections of this stream.
 */
const Base = { uuid: z.string(), session_id: z.string() };

export const SDKSystemInitMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("init"),
  ...Base,
  apiKeySource: ApiKeySource,
  /**
   * The Claude Code release whose tool formats Gyre's built-in tools follow (the SDK's field
   * name; Gyre's own version is `gyre_version`).
   */
  claude_code_version: z.string(),
  cwd: z.string(),
  /** Gyre addition: the project the session belongs to (the real path of `cwd` unless set otherwise). */
  project: z.string().optional(),
  tools: z.array(z.string()),
  /** The run's MCP servers (`mcpServers`): `connected`, `failed` or `needs-auth`, with Gyre's `error` saying why. */
  mcp_servers: z.array(z.object({ name: z.string(), status: z.string(), error: z.string().optional() })),
  model: z.string(),
  permissionMode: PermissionMode,
  slash_commands: z.array(z.string()),
  output_style: z.string(),
  /** The Agent Skills the model is offered (the Skill tool loads them), by name (`plugin:name` for a plugin's). */
  skills: z.array(z.string()),
  /** The plugins loaded (`plugins`, `--plugin-dir`), by name and folder. */
  plugins: z.array(z.object({ name: z.string(), path: z.string() })),
  gyre_version: z.string(),
  /** The agents the Agent tool can start (subagent types), as the Claude Agent SDK lists them; absent without the Agent tool. */
  agents: z.array(z.string()).optional(),
  /** Gyre: settings of an untrusted folder that did not apply (only deny and ask rules did). */
  ignored_settings: z
    .object({
      folder: z.string(),
      files: z.array(z.object({ path: z.string(), ignored: z.array(z.string()) })),
    })
    .optional(),
  /** Gyre: `SKILL.md` files that are not valid skills (left out), each with why. */
  invalid_skills: z.array(z.object({ path: z.string(), error: z.string() })).optional(),
});
export type SDKSystemInitMessage = z.infer<typeof SDKSystemInitMessage>;

export const SDKApiRetryMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  ...Base,
  attempt: z.number().int().positive(),
  max_retries: z.number().int().nonnegative(),
  retry_delay_ms: z.number().nonnegative(),
  error_status: z.number().int().nullable(),
  error: z.string(),
  /** Gyre addition: when the request goes out again (ms since the epoch), the same for every reader. */
  retry_at: z.number().optional(),
});
export type SDKApiRetryMessage = z.infer<typeof SDKApiRetryMessage>;

export const SDKCompactBoundaryMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("compact_boundary"),
  ...Base,
  compact_metadata: z.object({
    trigger: z.enum(["manual", "auto"]),
    pre_tokens: z.number().int().nonnegative(),
    post_tokens: z.number().int().nonnegative().optional(),
  }),
});
export type SDKCompactBoundaryMessage = z.infer<typeof SDKCompactBoundaryMessage>;

/** Gyre addition: the session's task list changed (TodoWrite), so UIs can show progress. */
export const SDKTodoMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("todos"),
  ...Base,
  todos: z.array(
    z.object({
      content: z.string(),
      status: z.enum(["pending", "in_progress", "completed"]),
      activeForm: z.string(),
    }),
  ),
});
export type SDKTodoMessage = z.infer<typeof SDKTodoMessage>;

/**
 * What one hook had to tell the caller, in the Claude Agent SDK's `hook_response` shape: its
 * `systemMessage` (`outcome: "success"`), or its failure (`outcome: "error"`, or `"cancelled"`
 * when the run was interrupted) — reported whether the failure blocked or not. Gyre sends one
 * only for a hook that failed or had a message, never for every hook that ran; a `canUseTool`
 * callback that throws is reported the same way, as `hook_name: "canUseTool"`.
 */
export const SDKHookResponseMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("hook_response"),
  ...Base,
  /** Unique per report (Gyre sends no `hook_started` to pair it with). */
  hook_id: z.string(),
  /** The command text, `callback <function name>`, or `canUseTool`. */
  hook_name: z.string(),
  /** The hook event (`PreToolUse`, ...), or `canUseTool`. */
  hook_event: z.string(),
  /** The hook's system message, or what went wrong. */
  output: z.string(),
  /** Gyre does not echo a hook's stdout (it can be megabytes of hook JSON): always empty. */
  stdout: z.string(),
  /** A failed command's stderr (its start). */
  stderr: z.string(),
  exit_code: z.number().int().optional(),
  outcome: z.enum(["success", "error", "cancelled"]),
  /** Gyre addition: the tool call the hook ran for. */
  tool_use_id: z.string().optional(),
  /** Gyre addition: the hook's `systemMessage`. */
  system_message: z.string().optional(),
  /**
   * Gyre addition, on failures: why (`threw`, `timeout`, `exit_code`, `invalid_output`, ...)
   * and what the failure did — `block`: what the event guards was blocked (a tool call denied,
   * ...); `continue`: the run went on as if the hook were not there.
   */
  error: z.object({ kind: z.string(), message: z.string(), on_failure: z.enum(["continue", "block"]) }).optional(),
});
export type SDKHookResponseMessage = z.infer<typeof SDKHookResponseMessage>;

/**
 * Gyre addition: the model call failed for good (retries included) and the run goes on with
 * `fallbackModel`, for the rest of the run.
 */
export const SDKModelFallbackMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("model_fallback"),
  ...Base,
  from_model: z.string(),
  to_model: z.string(),
  error: z.string(),
});
export type SDKModelFallbackMessage = z.infer<typeof SDKModelFallbackMessage>;

/**
 * Gyre addition: a turn ended without a tool call where one was expected, and the loop sent the
 * model a reminder to call one (loop-control tools on: `task_completion`, `ask_question`,
 * `converse`; or a StructuredOutput call missing). `reminder` is the text sent, `attempt` counts
 * the reminders of this prompt, up to `max_attempts`.
 */
export const SDKNoToolCallMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("no_tool_call"),
  ...Base,
  /** The turn that ended without a tool call (1-based, as `num_turns` counts them). */
  turn: z.number().int().positive(),
  reminder: z.string(),
  attempt: z.number().int().positive(),
  max_attempts: z.number().int().nonnegative(),
});
export type SDKNoToolCallMessage = z.infer<typeof SDKNoToolCallMessage>;

/**
 * Gyre addition: the run was handed from one agent to another (a `transfer_to_<agent>` call,
 * the OpenAI Agents SDK's handoff). From the next model call on, the run has the new agent's
 * system prompt, tools and model, with the history kept; a resumed session goes on with the
 * agent of its last handoff. `parent_tool_use_id` is set when a subagent handed over.
 */
export const SDKHandoffMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("handoff"),
  ...Base,
  /** The agent that handed the run over. */
  from: z.string(),
  /** The agent the rest of the run belongs to. */
  to: z.string(),
  /** The `transfer_to_<agent>` call that did it. */
  tool_use_id: z.string(),
  /** The model the run goes on with (`provider/model-id`). */
  model: z.string(),
  parent_tool_use_id: z.string().nullable(),
});
export type SDKHandoffMessage = z.infer<typeof SDKHandoffMessage>;

/**
 * Gyre addition: the OS sandbox blocked something a tool call's command tried (a write
 * outside the writable paths, a read of a denied path, a connection to a host not allowed).
 * The model sees the same in the tool result.
 */
export const SDKSandboxViolationMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("sandbox_violation"),
  ...Base,
  /**
   * The call whose command did it; null for what the sandbox found as the run ended (a
   * repository a background command planted after the last call), sent after the last result.
   */
  tool_use_id: z.string().nullable(),
  violations: z.array(
    z.object({
      /** `write`: a denied write; `read`: a denied read; `network`: a blocked connection. */
      kind: z.enum(["write", "read", "network"]),
      /** The path, or `host:port`. */
      target: z.string(),
      /** What was blocked and what is allowed, as the model was told. */
      message: z.string(),
    }),
  ),
});
export type SDKSandboxViolationMessage = z.infer<typeof SDKSandboxViolationMessage>;

/**
 * Gyre addition: a tool call was denied (a deny rule, the permission mode, a hook, `canUseTool`
 * or nobody there to ask), sent as it happens; the result's `permission_denials` lists them all
 * at the end. The model gets `message` as the call's error result.
 */
export const SDKPermissionDeniedMessage = z.object({
  type: z.literal("system"),
  subtype: z.literal("permission_denied"),
  ...Base,
  tool_use_id: z.string(),
  tool_name: z.string(),
  tool_input: z.unknown(),
  /** Why, as the model was told. */
  message: z.string(),
});
export type SDKPermissionDeniedMessage = z.infer<typeof SDKPermissionDeniedMessage>;

/** Usage as Anthropic reports it: Gyre's four counts, and the fields it does not track (see api-shapes.ts). */
export const ApiUsage = Usage.extend(
  Object.fromEntries(Object.entries(ApiUsageExtras).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof typeof ApiUsageExtras]: z.ZodOptional<(typeof ApiUsageExtras)[K]>;
  },
);
export type ApiUsage = z.infer<typeof ApiUsage>;

export const APIAssistantMessage = z.object({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(AssistantContentBlock),
  stop_reason: StopReason.nullable(),
  stop_sequence: z.string().nullable(),
  usage: ApiUsage,
  /** Fields of Anthropic's API message Gyre leaves unused (null in what Gyre emits). */
  container: z.unknown().optional(),
  context_management: z.unknown().optional(),
  diagnostics: z.unknown().optional(),
  stop_details: z.unknown().optional(),
});
export type APIAssistantMessage = z.infer<typeof APIAssistantMessage>;

export const SDKAssistantMessage = z.object({
  type: z.literal("assistant"),
  ...Base,
  message: APIAssistantMessage,
  parent_tool_use_id: z.string().nullable(),
  /** Gyre addition: what this model call cost, in US dollars (absent when the model has no known price). */
  cost_usd: z.number().nonnegative().optional(),
  /** Gyre addition: set when the model call failed part-way (cut stream, abort). */
  error: z.string().optional(),
  /** Gyre addition: the provider of the model that answered (`message.model` is its id there). */
  provider: z.string().optional(),
  /** Gyre addition: the agent that spoke (a subagent's type, or the agent the main thread runs as); absent for the main thread as itself. */
  agent: z.string().optional(),
  /** Gyre addition, with the `snapshots` option: the workspace's snapshot (a git tree hash in Gyre's own repository) as this step started. */
  snapshot: z.string().optional(),
});
export type SDKAssistantMessage = z.infer<typeof SDKAssistantMessage>;

export const SDKUserMessage = z.object({
  type: z.literal("user"),
  /**
   * Set on every user message Gyre sends and stores; optional as in the Claude Agent SDK's
   * `SDKUserMessage`, so a message a program builds to stream in as the prompt may leave it out.
   */
  uuid: z.string().optional(),
  session_id: z.string(),
  message: z.object({
    role: z.literal("user"),
    content: z.union([z.string(), z.array(UserContentBlock)]),
  }),
  parent_tool_use_id: z.string().nullable(),
  /** True for messages Gyre wrote itself (tool results, continuation prompts). */
  isSynthetic: z.boolean().optional(),
  /**
   * Gyre addition (OpenCode's ignored text): a message kept in the session — its text parts are
   * `ignored` — but left out of every history sent to the model (resume, continue, fork). For
   * notes a program or a UI appends to a session; a message of tool results is never ignored.
   */
  ignored: z.boolean().optional(),
  /** The structured result of the tool, for callers; the model sees the content blocks. */
  tool_use_result: z.unknown().optional(),
});
export type SDKUserMessage = z.infer<typeof SDKUserMessage>;

/**
 * A user message a caller streams in as the prompt. As in the Claude Agent SDK, `uuid`,
 * `session_id` and `parent_tool_use_id` may be left out: the run stamps its own.
 */
export type SDKUserMessageInput = Omit<SDKUserMessage, "uuid" | "session_id" | "parent_tool_use_id"> & {
  uuid?: string;
  session_id?: string;
  parent_tool_use_id?: string | null;
};

/** A raw stream event of Anthropic's Messages API, as `stream_event` messages carry them. */
export type AnthropicStreamEvent =
  | { type: "message_start"; message: APIAssistantMessage }
  | { type: "content_block_start"; index: number; content_block: AssistantContentBlock }
  | { type: "content_block_delta"; index: number; delta: AnthropicContentDelta }
  | { type: "content_block_stop"; index: number }
  | {
      type: "message_delta";
      delta: { stop_reason: StopReason | null; stop_sequence: string | null };
      usage: ApiUsage;
      context_management?: unknown;
    }
  | { type: "message_stop" };

export type AnthropicContentDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string };

/** Partial output while the model streams; `event` is an Anthropic raw stream event. */
export const SDKPartialAssistantMessage = z.object({
  type: z.literal("stream_event"),
  ...Base,
  /**
   * Gyre addition, on a `message_start` event: the turn this model call answers (1-based, as
   * `num_turns` counts them), so a UI or a trace can follow the loop turn by turn.
   */
  turn: z.number().int().positive().optional(),
  event: z.custom<AnthropicStreamEvent>(
    (value) => typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string",
  ),
  parent_tool_use_id: z.string().nullable(),
});
export type SDKPartialAssistantMessage = z.infer<typeof SDKPartialAssistantMessage>;

/**
 * A tool call is running. Gyre sends one as each call starts (`elapsed_time_seconds: 0`, with
 * its `title`), then one a second for calls that take a while, with the tool's latest report.
 */
export const SDKToolProgressMessage = z.object({
  type: z.literal("tool_progress"),
  ...Base,
  tool_use_id: z.string(),
  tool_name: z.string(),
  parent_tool_use_id: z.string().nullable(),
  elapsed_time_seconds: z.number().nonnegative(),
  /** Gyre addition: what the tool reported (a line of output, a percentage, ...). */
  data: z.unknown().optional(),
  /** Gyre addition, on the message a call starts with: what the call is about (a command, a path). */
  title: z.string().optional(),
  /**
   * Gyre addition, on the message a call starts with: why it was allowed to run — the rule or
   * mode (`Bash is allowed by the allow rule "Bash(npm test:*)"`), a hook, or an answer when asked.
   */
  permission_reason: z.string().optional(),
});
export type SDKToolProgressMessage = z.infer<typeof SDKToolProgressMessage>;

export const ModelUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadInputTokens: z.number().int().nonnegative(),
  cacheCreationInputTokens: z.number().int().nonnegative(),
  webSearchRequests: z.number().int().nonnegative(),
  costUSD: z.number().nonnegative(),
  contextWindow: z.number().int().nonnegative(),
  /** The model's output limit from the pricing table (0 when unknown). */
  maxOutputTokens: z.number().int().nonnegative(),
});
export type ModelUsage = z.infer<typeof ModelUsage>;

export const PermissionDenial = z.object({
  tool_name: z.string(),
  tool_use_id: z.string(),
  tool_input: z.unknown(),
});
export type PermissionDenial = z.infer<typeof PermissionDenial>;

/**
 * Gyre addition: a tool call a paused run waits on (`terminal_reason: "requires_action"`). A
 * `client_tool` call is executed by the caller, who answers it with a `tool_result` block; an
 * `approval` is a call whose permission was deferred, answered with a `tool_approval` block.
 */
export const PendingToolCall = z.object({
  kind: z.enum(["client_tool", "approval"]),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  /** For an approval: why permission is asked. */
  reason: z.string().optional(),
});
export type PendingToolCall = z.infer<typeof PendingToolCall>;

const ResultFields = {
  type: z.literal("result"),
  ...Base,
  is_error: z.boolean(),
  num_turns: z.number().int().nonnegative(),
  duration_ms: z.number().nonnegative(),
  duration_api_ms: z.number().nonnegative(),
  total_cost_usd: z.number().nonnegative(),
  /**
   * Gyre addition: models without a known price whose tokens `total_cost_usd` leaves out, so
   * the run's true cost is unknown (give their prices with the `pricing` option).
   */
  unpriced_models: z.array(z.string()).optional(),
  usage: ApiUsage,
  modelUsage: z.record(z.string(), ModelUsage),
  /**
   * Gyre addition: what compaction itself spent (summary calls, a provider's server-side
   * compaction), already counted in `total_cost_usd`, `usage` and `modelUsage`; absent when the
   * run never compacted.
   */
  compaction_cost_usd: z.number().nonnegative().optional(),
  /** The final answer text (success), or empty. */
  result: z.string(),
  stop_reason: StopReason.nullable(),
  permission_denials: z.array(PermissionDenial),
  terminal_reason: TerminalReason,
  /** With `outputFormat`: the validated answer the model gave through `StructuredOutput`. */
  structured_output: z.unknown().optional(),
  /** Gyre addition: the run ended by asking the person this (the `ask_question` tool). */
  question: z.object({ question: z.string(), options: z.array(z.string()).optional() }).optional(),
  /** Gyre addition: with `terminal_reason: "requires_action"`, the calls the run waits on. */
  pending_tool_calls: z.array(PendingToolCall).optional(),
  /**
   * Gyre addition: with `terminal_reason: "requires_action"` while tracing records, the W3C
   * `traceparent` of the span where the run paused; the run that answers its calls links to it.
   */
  traceparent: z.string().optional(),
  /** Gyre addition, with the `snapshots` option: the workspace's snapshot as the run ended. */
  snapshot: z.string().optional(),
  /**
   * Gyre addition: the agent the run ended as (the `agent` option, or the last handoff's
   * target); absent when the main thread never ran as an agent.
   */
  agent: z.string().optional(),
};

/** The result of a run that succeeded (the Claude Agent SDK's `SDKResultSuccess`). */
export const SDKResultSuccess = z.object({
  ...ResultFields,
  subtype: z.literal("success"),
  /** Absent on success. */
  errors: z.array(z.string()).optional(),
});
export type SDKResultSuccess = z.infer<typeof SDKResultSuccess>;

/** The result of a run that failed (the Claude Agent SDK's `SDKResultError`): `errors` says why. */
export const SDKResultError = z.object({
  ...ResultFields,
  subtype: ResultSubtype.exclude(["success"]),
  /** What went wrong, one text per error (as the Claude Agent SDK has it, always present). */
  errors: z.array(z.string()),
});
export type SDKResultError = z.infer<typeof SDKResultError>;

/** How a run ended: `SDKResultSuccess` or `SDKResultError`, by `subtype`. */
export const SDKResultMessage = z.discriminatedUnion("subtype", [SDKResultSuccess, SDKResultError]);
export type SDKResultMessage = z.infer<typeof SDKResultMessage>;

export const SDKSystemMessage = z.discriminatedUnion("subtype", [
  SDKSystemInitMessage,
  SDKApiRetryMessage,
  SDKCompactBoundaryMessage,
  SDKTodoMessage,
  SDKHookResponseMessage,
  SDKModelFallbackMessage,
  SDKNoToolCallMessage,
  SDKHandoffMessage,
  SDKSandboxViolationMessage,
  SDKPermissionDeniedMessage,
]);
export type SDKSystemMessage = z.infer<typeof SDKSystemMessage>;

export const SDKMessage = z.union([
  SDKSystemMessage,
  SDKAssistantMessage,
  SDKUserMessage,
  SDKPartialAssistantMessage,
  SDKToolProgressMessage,
  SDKResultMessage,
]);
export type SDKMessage = z.infer<typeof SDKMessage>;
