import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { PluginConfig } from "../plugins/index.js";
import type { Meter, Tracer } from "@opentelemetry/api";
import type { Compactor, CompactorOptions, ContextOption, SystemPromptFunction } from "../context/index.js";
import type { HookCallbacks } from "../hooks/index.js";
import type { Model, PricingTable, ProviderConfig, ProviderOptions } from "../model/index.js";
import type { McpServerConfig, OnElicitation } from "../mcp/index.js";
import type { AgentDefinition } from "./agent-definition.js";
import type { CanUseTool, PermissionHint, PermissionResult } from "../permissions/index.js";
import type { PermissionMode, SDKUserMessageInput } from "../protocol/index.js";
import type { SandboxSettings } from "../sandbox/index.js";
import type { SessionStore } from "../sessions/index.js";
import type { OutputFormat, WebFetchSettings, WebSearchSettings } from "../tools/builtin/index.js";
import type { AnyTool } from "../tools/index.js";
import type { ToolSearchOption } from "../tool-search/index.js";
import type { EffortOption, ThinkingOption } from "./reasoning-options.js";
import type { RetryPolicy } from "../loop/index.js";

export type { CanUseTool, PermissionHint, PermissionResult, UnaskedCall } from "../permissions/index.js";

/**
 * A system prompt: literal text (sent exactly, as in the Claude Agent SDK), Gyre's preset with
 * text appended (the default; the plan and retrieved context follow it, rebuilt for every model
 * call), or a function that builds each model call's prompt from the run as it is then.
 */
export type SystemPromptOption =
  string | { type: "preset"; preset: "gyre" | "claude_code"; append?: string } | SystemPromptFunction;

/**
 * Options of `query()`. Names follow the Claude Agent SDK where one exists, so code
 * written for it needs only an import change.
 */
export interface QueryOptions {
  /**
   * `"provider/model-id"`, an AI SDK language model, or a {@link Model} of your own. Default:
   * `GYRE_MODEL`, else `DEFAULT_MODEL` (the newest generally available Sonnet, `anthropic/claude-sonnet-5-5`).
   */
  model?: string | LanguageModelV3 | Model;
  systemPrompt?: SystemPromptOption;
  /** Model calls allowed before the run stops with `error_max_turns`. */
  maxTurns?: number;
  /**
   * Spend allowed, checked after every model call; past it the run stops with
   * `error_max_budget_usd`. Every model the run may use needs a price (the built-in table or
   * `pricing`), else the run fails before its first request with `unpriced_model`, unless
   * `maxBudgetTokens` is set as well.
   */
  maxBudgetUsd?: number;
  /**
   * Tokens allowed (input, cache and output, summed over the run's model calls), checked
   * after every model call; past it the run stops with `error_max_budget_usd`. Needs no prices.
   */
  maxBudgetTokens?: number;
  cwd?: string;
  /** Tools offered to the model: tool objects and names of built-in tools. Default: the built-in set. */
  tools?: Array<AnyTool | string>;
  /**
   * MCP servers whose tools the model may use, by name (as in the Claude Agent SDK): stdio
   * `{ command, args?, env?, cwd? }`, `{ type: "http", url, headers? }` (streamable HTTP),
   * `{ type: "sse", url, headers? }`, or an in-process `createSdkMcpServer(...)`. They are
   * connected when the run starts and closed when it ends; the model sees a server's tools as
   * `mcp__<server>__<tool>`, and permission rules `mcp__<server>` cover all of them. A server
   * that fails to connect is reported in `system`/`init`'s `mcp_servers` as `failed`, one that
   * asks for OAuth authorization Gyre has no tokens for as `needs-auth`; the run goes on.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /**
   * Use only `mcpServers`: no servers from MCP config files (`.mcp.json`, `~/.claude.json`,
   * `~/.gyre/mcp.json`), which are otherwise read for the scopes in `settingSources`.
   */
  strictMcpConfig?: boolean;
  /**
   * Tool search, as Claude Code's `ENABLE_TOOL_SEARCH` (whose values it takes; the option wins
   * over the variable, from `env`, the settings files' `env`, or the process's). While it is in
   * use, MCP tools are sent by name only, listed in the `ToolSearch` tool's description, and the
   * model loads the ones it needs with ToolSearch: their full definitions are sent from the next
   * model call on. `"auto"` (the default): in use once the MCP tools' definitions would take
   * more than 10% of the model's context window; `"auto:N"`: past N%; `true`: whenever the run
   * has MCP tools; `false`: never (every schema on every request). `disallowedTools:
   * ["ToolSearch"]` turns it off too. See docs/mcp.md.
   */
  toolSearch?: ToolSearchOption;
  /**
   * Subagents the model may start with the `Agent` tool, by name (the Claude Agent SDK's
   * `agents`). A built-in `general-purpose` agent is always there; a definition of that name
   * replaces it. With `settingSources`, agent files (`.claude/agents/*.md`, `.gyre/agents/*.md`,
   * in the home folder and the project) add to them; these options win on a name clash.
   */
  agents?: Record<string, AgentDefinition>;
  /**
   * Run the main thread as one of `agents` (the Claude Agent SDK's `agent`, `gyre run --agent`):
   * its prompt is the system prompt (with the environment section), its `tools` narrow the
   * run's, and its `model`, `maxTurns`, `permissionMode` (narrowing only) and `handoffs` apply.
   * A resumed session goes on as the agent it was last handed to. An unknown name is a `config_error`.
   */
  agent?: string;
  /** Handoffs (`transfer_to_<agent>` calls taken) per prompt before the run stops with `doom_loop`. Default 10. */
  maxHandoffs?: number;
  /** How deep subagents may nest. Default 1: subagents cannot start their own; 0 turns the `Agent` tool off. */
  maxSubagentDepth?: number;
  /** Subagents that run at once; further `Agent` calls of the same turn wait. Default 4. */
  maxConcurrentSubagents?: number;
  /**
   * Answers an MCP server's request for user input (elicitation), as in the Claude Agent SDK.
   * Without it the servers are told the client cannot answer, so a request fails at once.
   */
  onElicitation?: OnElicitation;
  /** Tools that run without asking `canUseTool`. */
  allowedTools?: string[];
  /** Tools removed from the model's view; calls to them are refused. */
  disallowedTools?: string[];
  abortController?: AbortController;
  /**
   * The OpenTelemetry tracer the run's spans go to (`invoke_agent`, `chat`, `execute_tool`, in
   * the GenAI semantic conventions). Default: the global tracer provider's, when the application
   * registered one; without one, tracing costs nothing. See docs/telemetry.md.
   */
  tracer?: Tracer;
  /**
   * The OpenTelemetry meter the run's GenAI metrics go to (`gen_ai.client.token.usage`,
   * `gen_ai.client.operation.duration`, Gyre's `gyre.client.cost`). Default: the global meter
   * provider's, when the application registered one.
   */
  meter?: Meter;
  /**
   * Put prompts, answers and tool inputs and outputs into the spans (`gen_ai.input.messages`
   * and the like). Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, else off.
   */
  traceContent?: boolean;
  /** Emit `stream_event` messages while the model streams. */
  includePartialMessages?: boolean;
  /** Retries of a failed model call (rate limits, overload, cut streams). Default 10. */
  maxRetries?: number;
  /**
   * A model (`"provider/model-id"`) the run switches to, for the rest of the run, when a model
   * call fails for good (after its retries). Resolved up front: a bad one fails before any
   * request. The switch is reported as a `system` message of subtype `model_fallback`.
   */
  fallbackModel?: string;
  /**
   * Ask for the final answer as structured output (as in the Claude Agent SDK):
   * `{ type: "json_schema", schema }` with a JSON Schema of an object (or a zod object schema).
   * The model answers through a `StructuredOutput` tool whose input is validated against it;
   * the result carries it as `structured_output`. A model that ends without a valid call is
   * reminded `maxStructuredOutputRetries` times (default 3), then the run ends with subtype
   * `error_max_structured_output_retries`.
   */
  outputFormat?: OutputFormat;
  maxStructuredOutputRetries?: number;
  canUseTool?: CanUseTool;
  /**
   * What a call's denial says to do when it needed asking and nobody could be asked (no
   * `canUseTool`, or `dontAsk` mode): the host's own words (the CLI names its flags, the
   * settings files and `gyre trust`). Default: the library's (`allowedTools`, a permission
   * rule, `permissionMode`).
   */
  permissionHint?: PermissionHint;
  /** Hook callbacks by event, as in the Claude Agent SDK. Settings-file hooks run too. */
  hooks?: HookCallbacks;
  /** How tool calls are approved. Default: `default` (ask for anything not allowed). */
  permissionMode?: PermissionMode;
  /** Directories besides `cwd` where file edits count as inside the workspace. */
  additionalDirectories?: string[];
  /**
   * Which settings files to read (`user`, `project`, `local`). Default: none, so a program is
   * not influenced by files on the machine; the CLI reads all three.
   */
  settingSources?: Array<"user" | "project" | "local">;
  /**
   * Which Agent Skills the model is offered (the Claude Agent SDK's `skills`): omitted or
   * `"all"`, every skill found — `.claude/skills/<name>/SKILL.md` and `.gyre/skills/` in the
   * home folder and the project, by `settingSources` — and a list, only those it names (`pdf`,
   * `my-plugin:pdf`). The system prompt lists each offered skill's name and description and the
   * `Skill` tool loads one. A filter of what the model sees, not a sandbox. `[]`: no skills.
   */
  skills?: string[] | "all";
  /**
   * Plugins to load (the Claude Agent SDK's `plugins`): `{ type: "local", path }` folders in
   * Claude Code's plugin layout (`.claude-plugin/plugin.json`, `commands/`, `agents/`,
   * `skills/`, `hooks/hooks.json`, `.mcp.json`). Their skills are `plugin:skill`, their agents
   * `plugin:agent`, their MCP servers `plugin_<plugin>_<server>`; their hooks run as settings
   * hooks do. A plugin that settings' `enabledPlugins` set to `false` is left out.
   */
  plugins?: PluginConfig[];
  /**
   * Settings over those of the files (Claude Code's `--settings`): the path of a JSON settings
   * file (relative to `cwd`), or the settings object. They win over every file, are trusted
   * (the caller chose them, unlike a project's files), and apply without `settingSources` too.
   */
  settings?: string | Record<string, unknown>;
  /**
   * Apply `project`/`local` settings in full only if the person trusted `cwd` (`gyre trust`);
   * otherwise only their deny and ask rules. Default false: listing them in `settingSources`
   * trusts them. The CLI sets it.
   */
  requireProjectTrust?: boolean;
  /**
   * Run Bash commands (foreground, background, pty) inside the OS sandbox (bubblewrap), in
   * Claude Code's `sandbox` settings shape: `{ enabled: true, network: { allowedDomains },
   * filesystem: { denyRead, allowWrite, denyWrite }, excludedCommands, autoAllowBashIfSandboxed,
   * allowUnsandboxedCommands }`. Applied over the `sandbox` blocks of the settings files. When
   * enabled and the sandbox cannot start, the run fails with `sandbox_unavailable` before any tool runs.
   */
  sandbox?: SandboxSettings;
  /**
   * WebFetch's settings (a Gyre addition), over the `webFetch` key of the settings files: the
   * small model that answers about a page (`smallModel`; `false`: the page itself), the hosts
   * of this machine or its network it may reach (`allowedLocalHosts`), its limits.
   */
  webFetch?: WebFetchSettings;
  /**
   * WebSearch's search API (a Gyre addition), over the `webSearch` key of the settings files:
   * `{ backend: "brave" | "tavily" | "searxng", url?, apiKeyEnv?, maxResults?, timeoutMs? }`.
   * Without one, WebSearch calls fail saying how to configure it.
   */
  webSearch?: WebSearchSettings;
  /** Identical consecutive tool calls that count as a doom loop (default 3; 0 turns detection off). */
  doomLoopThreshold?: number;
  /**
   * Add the loop-control tools `task_completion`, `ask_question` and `converse`; an answer
   * without a tool call then gets a reminder (up to `maxToolReminders`, default 3). A list
   * adds only the tools it names, and no reminder (the interactive agent offers `ask_question` alone).
   */
  loopControlTools?: boolean | Array<"task_completion" | "ask_question" | "converse">;
  maxToolReminders?: number;
  /**
   * Snapshot the workspace (`cwd`) at each step's start and at the run's end, as OpenCode does,
   * into a git repository of Gyre's own (in its data folder; never the project's `.git`): the
   * stored messages get snapshot parts, from which what each step changed comes back and the
   * files can be put back (`WorkspaceSnapshots`). Needs git; each snapshot is a `git add` of the
   * work tree (files its .gitignore leaves out are not taken). Default off.
   */
  snapshots?: boolean;
  /**
   * Client-side compaction when the context fills up (default on). `false` turns it off;
   * an object tunes it (threshold, kept turns, Anthropic's server-side compaction).
   */
  compaction?: false | Omit<CompactorOptions, "model" | "systemPrompt" | "tools" | "providerOptions">;
  /**
   * Compacts the history instead of Gyre's own compactor (the `compaction` tuning then does not
   * apply; `compaction: false` still turns compaction off). Its summary calls are its own
   * business: what it reports as `summaryUsage` is counted as compaction's cost.
   */
  compactor?: Compactor;
  /**
   * Retrieved context for the model: documents, or a function that gives them before each
   * model call (with the call's number and the plan as it is then). They reach the system
   * prompt of every call in a `<retrieved-context>` section, after the preset or literal text.
   */
  context?: ContextOption;
  /** Tools whose successful call ends the run, with their output as the result. */
  stopAtTools?: string[];
  /** How many times a Stop hook may keep the agent going (default 5). */
  maxStopHookContinuations?: number;
  /** Use this id for the session instead of a new one. */
  sessionId?: string;
  /**
   * Provider API-key variables the Bash tools' commands may inherit. By default they see none
   * of the keys Gyre itself uses (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, … and the key
   * variables of `providers`), so a command cannot print them to the model.
   */
  passEnv?: string[];
  /** Environment for API keys and base URLs. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  providers?: Record<string, ProviderConfig>;
  /**
   * The `fetch` model requests go through (the run's, its subagents' and WebFetch's small model's).
   * Default: the global `fetch`. The CLI passes Gyre's `node:http` one, which starts faster.
   */
  fetch?: typeof globalThis.fetch;
  /** Price overrides and additions, by model id. */
  pricing?: PricingTable;
  maxOutputTokens?: number;
  /** Passed through to the provider (e.g. `{ anthropic: { cacheControl: … } }`); wins over `thinking` and `effort`. */
  providerOptions?: ProviderOptions;
  /**
   * Extended thinking, as in the Claude Agent SDK: `{ type: "adaptive" }` (the model decides),
   * `{ type: "enabled", budgetTokens }` or `{ type: "disabled" }`. Sent to Anthropic models as
   * their `thinking` setting (other providers: see `effort`).
   */
  thinking?: ThinkingOption;
  /** How much effort the model spends (Anthropic `effort`, OpenAI `reasoningEffort`). */
  effort?: EffortOption;
  /** Timeout for each tool call, unless the tool sets its own. */
  toolTimeoutMs?: number;
  /**
   * Largest argument text (UTF-8 bytes) one tool call may have; default 64 MiB. A larger call
   * is not parsed or run: it gets an `is_error` result and the run goes on. The history keeps
   * it with `input: {}`, so the text is neither stored nor sent back to the model.
   */
  maxToolInputBytes?: number;
  /**
   * How many times in a row an answer cut at the output limit (`max_tokens`) is continued (the
   * model is asked to go on where it stopped) before the run ends with `terminal_reason:
   * "max_tokens"`. Default 3; 0 ends the run at the first cut answer, as the Go Claude SDK does.
   */
  maxTokensContinuations?: number;
  /**
   * Message-history pruning by count, besides the token-based compaction: each model request
   * carries at most this many of the newest history entries. The cut never parts a tool call
   * from its result (the window may pass the count to keep them together), and the latest
   * prompt of the person is kept in front when the cut falls inside a tool loop. The session
   * keeps every message. Default: no limit.
   */
  maxMessages?: number;
  /** Backoff tuning; `maxRetries` wins over `retry.maxRetries`. */
  retry?: Partial<RetryPolicy>;
  /** Continue this session: its history is loaded and the new prompt follows it. */
  resume?: string;
  /**
   * With `resume`: answers to the approvals a paused run deferred (`pending_tool_calls` of kind
   * `approval`), by tool_use id — `{ behavior: "allow" }` (optionally `updatedInput`) runs the
   * call, `{ behavior: "deny", message }` refuses it. Client-executed tools are answered in the
   * prompt instead, with `tool_result` blocks.
   */
  approvals?: Record<string, PermissionResult>;
  /**
   * With `resume`: go on with a run that the session left unfinished (the process running it
   * died), with no new prompt (the prompt must be empty). It goes on from the last committed
   * step: an answer of the model that was stored is not requested again; a tool call that was
   * running runs again when its tool is `idempotent`, and is otherwise answered as interrupted
   * (it may or may not have taken effect). A session whose run ended is a `resume_mismatch`.
   */
  continueRun?: boolean;
  /** Continue the most recently updated session in `cwd` (a new one when there is none). */
  continue?: boolean;
  /** With `resume`/`continue`: carry on in a new session holding a copy of the history. */
  forkSession?: boolean;
  /** With `resume`/`continue`: only the history up to this message uuid; continues in a fork. */
  resumeSessionAt?: string;
  /** `false`: no session store (nothing is saved, nothing can be resumed). Default true. */
  persistSession?: boolean;
  /**
   * Where sessions are saved. Default: one SQLite database in the user's data folder
   * (`$GYRE_HOME/sessions.db`, else `$XDG_DATA_HOME/gyre/sessions.db`, else `~/.gyre/sessions.db`).
   */
  sessionStore?: SessionStore;
  /** New ids for sessions and messages (default `crypto.randomUUID`); inject for deterministic tests and replays. */
  newUuid?: () => string;
  /** The clock for timestamps and durations (default `Date.now`); inject with `newUuid` for replays. */
  now?: () => number;
}

/**
 * The prompt: text, or a stream of user messages (streaming input); as in the Claude Agent SDK,
 * their `uuid`, `session_id` and `parent_tool_use_id` may be left out.
 */
export type QueryPrompt = string | AsyncIterable<SDKUserMessageInput>;

export interface QueryParams {
  prompt: QueryPrompt;
  options?: QueryOptions;
}
