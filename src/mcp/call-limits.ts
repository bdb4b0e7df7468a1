/** Claude Code's default for `MAX_MCP_OUTPUT_TOKENS`. */
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000;

/** What bounds one MCP tool call, read from the run's environment. */
export interface McpCallLimits {
  /** Estimated tokens a call's result may take before it is truncated (`MAX_MCP_OUTPUT_TOKENS`). */
  maxOutputTokens: number;
  /** Default per-call timeout in ms (`MCP_TOOL_TIMEOUT`); a server's own `timeout` wins. */
  timeoutMs?: number;
}

/**
 * The limits of MCP tool calls as Claude Code reads them: `MAX_MCP_OUTPUT_TOKENS` (default
 * 25,000) and `MCP_TOOL_TIMEOUT` (ms, default none). A value that is not a positive integer
 * is ignored, as if unset.
 */
export function mcpCallLimits(env: Readonly<Record<string, string | undefined>>): McpCallLimits {
  const timeoutMs = positiveInteger(env.MCP_TOOL_TIMEOUT);
  return {
    maxOutputTokens: positiveInteger(env.MAX_MCP_OUTPUT_TOKENS) ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS,
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

function positiveInteger(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) && number > 0 ? number : undefined;
}
