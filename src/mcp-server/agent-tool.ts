import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorMessage } from "../errors/index.js";
import { query } from "../agents/index.js";
import { type SDKResultMessage, Usage } from "../protocol/index.js";
import { toJsonSchema } from "../tools/index.js";
import { describeProgress, type ProgressTarget, ProgressReporter } from "./progress.js";
import type { ServeConfig } from "./serve-config.js";
import { errorCallResult } from "./tool-result-content.js";

export const AGENT_TOOL_NAME = "agent";

const AgentInput = z.object({
  prompt: z
    .string()
    .min(1)
    .describe("The task, in plain words, with everything the agent needs to know: it sees nothing else."),
  maxTurns: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Stop after this many model turns (the server's own limit, if lower, still applies)."),
});

/** What `structuredContent` of the agent tool's result holds: the run's outcome and what it cost. */
const AgentOutput = z.object({
  session_id: z.string(),
  subtype: z.string().describe('"success", or the error the run ended in (e.g. "error_max_turns")'),
  terminal_reason: z.string(),
  num_turns: z.number().int(),
  total_cost_usd: z.number(),
  duration_ms: z.number(),
  usage: Usage,
  permission_denials: z.number().int().describe("tool calls the permission settings refused"),
});
type AgentOutput = z.infer<typeof AgentOutput>;

/** The agent tool as `tools/list` shows it. */
export function agentToolDefinition(): McpTool {
  return {
    name: AGENT_TOOL_NAME,
    title: "Gyre agent",
    description:
      "Give a task to a Gyre coding agent, which works on it on its own, calling tools (shell commands, " +
      "reading, searching and editing files) within the server's permission settings, and answers " +
      "when done. Returns the final answer as text, and the turns, tokens and cost of the run.",
    inputSchema: toJsonSchema(AgentInput) as McpTool["inputSchema"],
    outputSchema: toJsonSchema(AgentOutput) as NonNullable<McpTool["outputSchema"]>,
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  };
}

/** The request context of one call, as the MCP SDK hands it to a handler. */
export interface CallExtra extends ProgressTarget {
  signal: AbortSignal;
}

/**
 * Runs the agent once on the call's prompt with the server's options. Each model answer and
 * tool call of the run is reported as progress; the client cancelling the request aborts the
 * run. Nobody can be asked for permission, so a call the settings would ask about is denied,
 * as in `gyre run`.
 */
export async function callAgent(args: unknown, extra: CallExtra, config: ServeConfig): Promise<CallToolResult> {
  const input = AgentInput.safeParse(args);
  if (!input.success) return errorCallResult(`Invalid input for ${AGENT_TOOL_NAME}: ${z.prettifyError(input.error)}`);
  const controller = new AbortController();
  const abort = () => controller.abort(extra.signal.reason);
  if (extra.signal.aborted) abort();
  extra.signal.addEventListener("abort", abort, { once: true });
  const progress = new ProgressReporter(extra);
  let result: SDKResultMessage | undefined;
  try {
    const options = {
      ...config.query,
      maxTurns: lowest(config.query.maxTurns, input.data.maxTurns),
      abortController: controller,
    };
    for await (const message of query({ prompt: input.data.prompt, options })) {
      for (const line of describeProgress(message)) await progress.report(line);
      if (message.type === "result") result = message;
    }
  } catch (error) {
    return errorCallResult(`The agent could not run: ${errorMessage(error)}`);
  } finally {
    extra.signal.removeEventListener("abort", abort);
  }
  if (!result) return errorCallResult("The agent run ended without a result.");
  return resultOf(result);
}

function resultOf(result: SDKResultMessage): CallToolResult {
  const structuredContent: AgentOutput = {
    session_id: result.session_id,
    subtype: result.subtype,
    terminal_reason: result.terminal_reason,
    num_turns: result.num_turns,
    total_cost_usd: result.total_cost_usd,
    duration_ms: result.duration_ms,
    usage: {
      input_tokens: result.usage.input_tokens,
      output_tokens: result.usage.output_tokens,
      cache_creation_input_tokens: result.usage.cache_creation_input_tokens,
      cache_read_input_tokens: result.usage.cache_read_input_tokens,
    },
    permission_denials: result.permission_denials.length,
  };
  if (!result.is_error) return { content: [{ type: "text", text: result.result }], structuredContent };
  const why = (result.errors ?? []).join("; ") || result.terminal_reason;
  const partial = result.result ? `\n\n${result.result}` : "";
  return {
    content: [{ type: "text", text: `The agent run failed (${result.subtype}): ${why}${partial}` }],
    structuredContent,
    isError: true,
  };
}

function lowest(serverLimit: number | undefined, requested: number | undefined): number | undefined {
  if (serverLimit === undefined) return requested;
  return requested === undefined ? serverLimit : Math.min(serverLimit, requested);
}
