/**
 * Attribute and event names of OpenTelemetry's GenAI semantic conventions (the incubating
 * `gen_ai.*` names of `@opentelemetry/semantic-conventions`, written out here: that package is
 * not a dependency) and Gyre's own, under `gyre.`.
 */
export const ATTR = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTemperature: "gen_ai.request.temperature",
  requestTopP: "gen_ai.request.top_p",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  tokenType: "gen_ai.token.type",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  systemInstructions: "gen_ai.system_instructions",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  costUsd: "gyre.cost_usd",
  terminalReason: "gyre.terminal_reason",
  numTurns: "gyre.num_turns",
  retryAttempt: "gyre.retry.attempt",
  permissionBehavior: "gyre.permission.behavior",
  permissionReason: "gyre.permission.reason",
  hookEvent: "gyre.hook.event",
  hookCount: "gyre.hook.count",
  hookDecision: "gyre.hook.decision",
  hookErrors: "gyre.hook.errors",
  sandboxViolations: "gyre.sandbox.violations",
  compactionTrigger: "gyre.compaction.trigger",
  compactionPreTokens: "gyre.compaction.pre_tokens",
  compactionPostTokens: "gyre.compaction.post_tokens",
  pendingToolCalls: "gyre.pending_tool_calls",
  handoffFrom: "gyre.handoff.from",
  handoffTo: "gyre.handoff.to",
  linkKind: "gyre.link.kind",
} as const;

/** Span event names. */
export const EVENT = {
  /** The permission gate's decision on a tool call. */
  permission: "gyre.permission",
  /** Hooks ran for an event (on the call's span for tool events, else the run's). */
  hook: "gyre.hook",
  /** The sandbox blocked what a command tried (on the call's span). */
  sandboxViolation: "gyre.sandbox.violation",
  /** The run paused on calls the caller must answer (`requires_action`). */
  pause: "gyre.pause",
} as const;

/**
 * `gen_ai.provider.name` for Gyre's provider names: the conventions' well-known values where
 * there is one, else Gyre's own name (a user-configured OpenAI-compatible provider).
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  anthropic: "anthropic",
  openai: "openai",
  azure: "azure.ai.openai",
  google: "gcp.gemini",
  xai: "x_ai",
  deepseek: "deepseek",
  groq: "groq",
  mistral: "mistral_ai",
  bedrock: "aws.bedrock",
};

export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}
