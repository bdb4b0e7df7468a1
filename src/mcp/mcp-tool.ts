import type {
  CallToolResult,
  CompatibilityCallToolResult,
  Tool as McpToolInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import type { Tool } from "../tools/index.js";
import { toToolResult } from "./call-result.js";

export interface McpToolSource {
  /** The server's key in `mcpServers`. */
  server: string;
  /** Calls the server's tool (connecting it again first when it was lost). */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult | CompatibilityCallToolResult>;
  /** Per-call timeout from the server's config. */
  timeoutMs?: number;
}

/**
 * A Gyre tool that calls one tool of an MCP server. The model sees the server's `inputSchema`
 * unchanged; calls are checked against it (as far as zod can read it; the server checks
 * again). Only a `readOnlyHint: true` annotation makes the tool read-only: anything else is
 * treated as changing the world, so permissions ask for it.
 */
export function mcpTool(name: string, info: McpToolInfo, source: McpToolSource): Tool<Record<string, unknown>> {
  const jsonSchema = info.inputSchema as Record<string, unknown>;
  return {
    name,
    description: info.description ?? info.title ?? `Tool ${info.name} of MCP server ${source.server}`,
    inputSchema: validatorFor(jsonSchema),
    jsonSchema,
    sideEffect: info.annotations?.readOnlyHint === true ? "read-only" : "mutating",
    ...(source.timeoutMs !== undefined && { timeoutMs: source.timeoutMs }),
    async execute(input, context) {
      let result;
      try {
        result = await source.call(info.name, input, context.signal);
      } catch (error) {
        // The server's own errors (unavailable, connection lost) already name the server and say what follows.
        if (isGyreError(error, "mcp_server_unavailable") || isGyreError(error, "mcp_tool_error")) throw error;
        throw new GyreError(
          "mcp_tool_error",
          `MCP server "${source.server}": tool "${info.name}" failed: ${errorMessage(error)}`,
          { cause: error, toolName: name },
        );
      }
      return toToolResult(result);
    },
  };
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
