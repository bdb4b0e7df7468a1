import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  type CompatibilityCallToolResult,
  ErrorCode,
  McpError,
  type Progress,
  type Tool as McpToolInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import type { Tool, ToolResult } from "../tools/index.js";
import { toToolResult } from "./call-result.js";
import type { McpCallLimits } from "./call-limits.js";
import { limitOutput } from "./output-limit.js";

/** What a call passes to the server's `tools/call` request besides its signal. */
export type McpCallOptions = Pick<RequestOptions, "timeout" | "resetTimeoutOnProgress" | "onprogress">;

export interface McpToolSource {
  /** The server's key in `mcpServers`. */
  server: string;
  /** Calls the server's tool (connecting it again first when it was lost). */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    options: McpCallOptions,
  ): Promise<CallToolResult | CompatibilityCallToolResult>;
  /** Per-call timeout from the server's config; when absent, `limits.timeoutMs` applies. */
  timeoutMs?: number;
  limits: McpCallLimits;
}

/**
 * A Gyre tool that calls one tool of an MCP server. The model sees the server's `inputSchema`
 * unchanged; calls are checked against it (as far as zod can read it; the server checks
 * again). Only a `readOnlyHint: true` annotation makes the tool read-only: anything else is
 * treated as changing the world, so permissions ask for it.
 *
 * A call's progress notifications become the tool's progress reports (`tool_progress`);
 * its timeout (the server's `timeout`, else `MCP_TOOL_TIMEOUT`) counts from the last sign of
 * life (the call or a progress notification), and when it fires, or the run is aborted, the
 * MCP SDK sends the server `notifications/cancelled`. The result is cut to
 * `MAX_MCP_OUTPUT_TOKENS` (see `limitOutput`).
 */
export function mcpTool(name: string, info: McpToolInfo, source: McpToolSource): Tool<Record<string, unknown>> {
  const jsonSchema = info.inputSchema as Record<string, unknown>;
  const timeoutMs = source.timeoutMs ?? source.limits.timeoutMs;
  const { maxOutputTokens } = source.limits;
  return {
    name,
    description: info.description ?? info.title ?? `Tool ${info.name} of MCP server ${source.server}`,
    inputSchema: validatorFor(jsonSchema),
    jsonSchema,
    sideEffect: info.annotations?.readOnlyHint === true ? "read-only" : "mutating",
    mcp: { server: source.server, tool: info.name, ...(alwaysLoads(info) && { alwaysLoad: true }) },
    // The token limit below is the one that applies; the registry's character cut must not come first.
    maxOutputChars: maxOutputTokens * 4,
    async execute(input, context): Promise<ToolResult> {
      let result;
      try {
        result = await source.call(info.name, input, context.signal, {
          ...(timeoutMs !== undefined && { timeout: timeoutMs }),
          resetTimeoutOnProgress: true,
          onprogress: (progress: Progress) => context.reportProgress(progressData(progress)),
        });
      } catch (error) {
        if (timeoutMs !== undefined && isTimeout(error) && !context.signal.aborted) {
          return {
            isError: true,
            content:
              `Error: MCP server "${source.server}": tool "${info.name}" timed out after ${timeoutMs} ms without ` +
              "an answer or progress, and the call was cancelled.",
          };
        }
        // The server's own errors (unavailable, connection lost) already name the server and say what follows.
        if (isGyreError(error, "mcp_server_unavailable") || isGyreError(error, "mcp_tool_error")) throw error;
        throw new GyreError(
          "mcp_tool_error",
          `MCP server "${source.server}": tool "${info.name}" failed: ${errorMessage(error)}`,
          { cause: error, toolName: name },
        );
      }
      return limitOutput(toToolResult(result), maxOutputTokens);
    },
  };
}

/** The server asks for the tool to be sent whole even while tool search defers MCP tools (Claude Code's `_meta` key). */
function alwaysLoads(info: McpToolInfo): boolean {
  return info._meta?.["anthropic/alwaysLoad"] === true;
}

/** Characters of a progress message passed on: the server's text must not flood the caller's stream. */
const MAX_PROGRESS_MESSAGE = 1000;

/** A progress notification as `tool_progress` data: `{ progress, total?, message? }`. */
function progressData({ progress, total, message }: Progress): Progress {
  return {
    progress,
    ...(typeof total === "number" && { total }),
    ...(typeof message === "string" && { message: message.slice(0, MAX_PROGRESS_MESSAGE) }),
  };
}

/** The MCP SDK's own timeout (also used for an abort's reason, hence the caller's check of its signal). */
function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

const anyObject = z.record(z.string(), z.unknown());

/** A zod validator for the server's schema; a schema zod cannot read (remote `$ref`s …) checks only for an object. */
function validatorFor(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<Record<string, unknown>>;
  } catch {
    return anyObject;
  }
}
