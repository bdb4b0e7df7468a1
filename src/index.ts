// The public API of `gyre`: what a program calls, and every type it needs to write options,
// tools, hooks, permission callbacks, session stores and message consumers. An explicit
// list, so nothing internal leaks out by being exported from a folder; `api/gyre.api.md`
// records it, and `npm run api` updates that report when this surface changes on purpose.

// ── Running an agent ──────────────────────────────────────────────────────────────────
export { Agent, type AgentOptions, AgentSession, type AgentSessionOptions, query } from "./agents/index.js";
export {
  type CanUseTool,
  DEFAULT_MODEL,
  type EffortOption,
  type PermissionHint,
  type PermissionResult,
  type Query,
  type QueryOptions,
  /** The Claude Agent SDK's name for {@link QueryOptions}. */
  type QueryOptions as Options,
  type QueryParams,
  type QueryPrompt,
  type SystemPromptOption,
  type ThinkingOption,
  type UnaskedCall,
} from "./run/index.js";
export type { RetryPolicy, RunBudget } from "./loop/index.js";
// Pause and resume: the answers a paused run (`requires_action`) waits on.
export { type Approval, type ClientToolResult, toolResultsPrompt } from "./loop/index.js";

// ── Messages: the SDKMessage stream (zod schemas and their types share a name) ───────────
export {
  ApiKeySource,
  AssistantContentBlock,
  type HistoryEntry,
  ImageBlock,
  PermissionMode,
  RedactedThinkingBlock,
  ResultSubtype,
  StopReason,
  TerminalReason,
  TextBlock,
  ThinkingBlock,
  ServerToolUsage,
  ServerToolUseBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserContentBlock,
  WebSearchResult,
  WebSearchToolResultBlock,
  WebSearchToolResultError,
} from "./protocol/index.js";
export {
  type AnthropicContentDelta,
  type AnthropicStreamEvent,
  APIAssistantMessage,
  ApiUsage,
  ModelUsage,
  PermissionDenial,
  PendingToolCall,
  SDKApiRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKHandoffMessage,
  SDKHookResponseMessage,
  SDKMessage,
  SDKModelFallbackMessage,
  SDKNoToolCallMessage,
  SDKSandboxViolationMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDeniedMessage,
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
  SDKSystemInitMessage,
  SDKSystemMessage,
  SDKTodoMessage,
  SDKToolProgressMessage,
  SDKUserMessage,
  type SDKUserMessageInput,
} from "./protocol/messages/index.js";

// ── Tools ─────────────────────────────────────────────────────────────────────────────
export {
  type AnyTool,
  type ClientTool,
  type DefineToolOptions,
  type FileGuard,
  type FoundPath,
  defineTool,
  type SideEffect,
  type Tool,
  type ToolContent,
  type ToolContext,
  type ToolEvent,
  type ToolOutput,
  type ToolResult,
  type ToolSession,
} from "./tools/index.js";
export {
  type AskUserQuestionInput,
  type AskUserQuestionItem,
  type AskUserQuestionOption,
  type AskUserQuestionOutput,
  type BashToolsOptions,
  type CommandSandbox,
  type DefaultToolsOptions,
  defaultTools,
  type ExitPlanModeInput,
  type ExitPlanModeOutput,
  type GrepToolOptions,
  type OutputFormat,
  type PageAnswerer,
  type SandboxViolation,
  type SandboxWatch,
  type SearchBackend,
  type SearchHit,
  type SearchRequest,
  type WebFetchOutput,
  WebFetchSettings,
  type WebFetchToolOptions,
  type WebSearchOutput,
  WebSearchSettings,
  type WebSearchToolOptions,
} from "./tools/builtin/index.js";
// Tool search: MCP tools sent by name only and loaded with the ToolSearch tool (`toolSearch`).
export type { ToolSearchInput, ToolSearchOption, ToolSearchOutput } from "./tool-search/index.js";

// ── Sandbox: the `sandbox` option (as a settings file's `sandbox` block) ──────────────
export { SandboxSettings } from "./sandbox/index.js";

// ── MCP: servers whose tools a run uses (`mcpServers`), in-process servers ───────────
export {
  type CreateSdkMcpServerOptions,
  createSdkMcpServer,
  type ElicitationRequest,
  type ElicitationResult,
  type InferShape,
  type McpHttpServerConfig,
  type McpOAuthOptions,
  type McpSdkServerConfigWithInstance,
  type McpServerConfig,
  type McpServerState,
  type McpServerStatus,
  type McpSSEServerConfig,
  type McpStdioServerConfig,
  type OnElicitation,
  type SdkMcpToolDefinition,
  tool,
  type ZodRawShape,
} from "./mcp/index.js";

// ── Subagents: agents the model starts with the `Agent` tool (`agents`), or hands off to ──
export type { AgentDefinition, AgentMcpServerSpec } from "./run/index.js";

// ── Plugins (`plugins`): folders of commands, agents, skills, hooks and MCP servers ──────
export type { PluginConfig, PluginConfig as SdkPluginConfig } from "./plugins/index.js";

// ── Permissions: `canUseTool` answers and the updates they may carry ──────────────────
export {
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  RuleBehavior,
} from "./permissions/index.js";

// ── Hooks: `options.hooks` callbacks, their input per event and their output ──────────
export {
  AsyncHookJSONOutput,
  BaseHookInput,
  type HookCallback,
  type HookCallbackMatcher,
  type HookCallbackResult,
  type HookCallbacks,
  HookEventName,
  HookInput,
  type HookInputFor,
  HookJSONOutput,
  HookPermissionDecision,
  HookSpecificOutput,
  NotificationHookInput,
  PermissionRequestDecision,
  PermissionRequestHookInput,
  PostCompactHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreToolUseHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  StopHookInput,
  SubagentStopHookInput,
  SyncHookJSONOutput,
  UserPromptSubmitHookInput,
} from "./hooks/index.js";

// ── Sessions: stores, admin functions, and what a custom store must return ────────────
export {
  AgentPart,
  CompactionPart,
  FilePart,
  SnapshotPart,
  type ConversationRecord,
  type ConversationRecords,
  CreateSessionInput,
  defaultSqlitePath,
  deleteSession,
  type FileCheckpoint,
  type ForkOptions,
  getSession,
  getSessionMessages,
  getSessionTree,
  type IdGenerator,
  type IdPrefix,
  type ListSessionsFilter,
  listSessions,
  MemorySessionStore,
  MessageInfo,
  openPostgresSessionStore,
  openSqliteSessionStore,
  Part,
  PatchPart,
  type PgClientLike,
  type PgPoolLike,
  type PgQueryResult,
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
  projectSqlitePath,
  ReasoningPart,
  type RecordData,
  type RecordEvent,
  type RecordItem,
  type ResponseRecord,
  type ResponseRecords,
  type RewindFilesResult,
  renameSession,
  type ServerRecords,
  SessionInfo,
  type SessionLock,
  SessionStatus,
  type SnapshotChange,
  WorkspaceSnapshots,
  type WorkspaceSnapshotsOptions,
  type SessionStore,
  type SessionTree,
  SqliteSessionStore,
  type SqliteSessionStoreOptions,
  StepFinishPart,
  StepStartPart,
  type StoreClockOptions,
  StoredMessage,
  type StoreLocation,
  SubtaskPart,
  SubtaskStatus,
  TextPart,
  ToolPart,
  ToolState,
  type UpToOptions,
} from "./sessions/index.js";

// ── Context: tuning `options.compaction` ─────────────────────────────────────────────
export type { AnthropicServerCompactionOptions, CompactorOptions } from "./context/index.js";
// ── Context: the system prompt builder and the compactor, to replace or build on ─────────
export {
  type BuildPromptInput,
  type CompactionResult,
  type CompactOptions,
  type Compactor,
  type ContextDocument,
  type ContextOption,
  type ContextRequest,
  type PromptBuilder,
  type PromptSections,
  type RetrieveContext,
  type RetrieveContextRequest,
  SummaryCompactor,
  type SystemPromptBuilderOptions,
  SystemPromptBuilder,
  type SkillSummary,
  type SystemPromptContext,
  type SystemPromptFunction,
  type SystemPromptSpec,
  type TodoItem,
} from "./context/index.js";

// ── Models: resolution, providers, pricing, and the interface a custom model implements ──
export {
  BUILTIN_PROVIDERS,
  DEFAULT_PRICING,
  type CallSettings,
  type Env,
  type FreeformFormat,
  type FreeformTool,
  type JsonObject,
  type JsonValue,
  lookupModelInfo,
  type Model,
  type ModelApi,
  ModelCallError,
  type ModelCallErrorOptions,
  ModelInfo,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelTool,
  type ProviderOptions,
  type ServerCompactionUsage,
  type ServerSearchOptions,
  type ToolInputProblem,
  type PricingTable,
  PRICES_AS_OF,
  ProviderConfig,
  providerKeyEnvNames,
  Rates,
  type ResolveModelOptions,
  resolveModel,
  type TextProtocolRules,
  wrapTextProtocol,
} from "./model/index.js";

// ── Settings: trusted folders (what `gyre trust` manages) ─────────────────────────────
export {
  findTrustedFolder,
  listTrustedFolders,
  TrustedFolder,
  type TrustOutcome,
  type TrustStoreOptions,
  trustFolder,
  type UntrustOutcome,
  untrustFolder,
} from "./settings/index.js";

// ── Errors ────────────────────────────────────────────────────────────────────────────
export { GyreError, type GyreErrorCode, type GyreErrorOptions, isGyreError } from "./errors/index.js";
