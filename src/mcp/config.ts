import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * A server Gyre starts as a child process and talks to over stdin/stdout (the Claude Agent
 * SDK's `McpStdioServerConfig`, plus `cwd`). The process gets a minimal environment (`PATH`,
 * `HOME`, `USER`, `SHELL`, `TERM`, `LOGNAME`) and `env`: never the caller's API keys.
 */
export interface McpStdioServerConfig {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Working directory of the process. Default: the run's `cwd`. */
  cwd?: string;
  /**
   * Per-call timeout in milliseconds for this server's tools, counted from the call or its
   * last progress notification; the call is then cancelled. Default: `MCP_TOOL_TIMEOUT` from
   * the run's `env`. The run's `toolTimeoutMs` still bounds every call.
   */
  timeout?: number;
}

/** A server reached over MCP's streamable HTTP transport. */
export interface McpHttpServerConfig {
  type: "http";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
}

/** A server reached over MCP's older HTTP+SSE transport. */
export interface McpSSEServerConfig {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
}

/** An in-process server, as `createSdkMcpServer` returns it. */
export interface McpSdkServerConfigWithInstance {
  type: "sdk";
  name: string;
  instance: McpServer;
  timeout?: number;
}

/** How to reach one MCP server: the Claude Agent SDK's `McpServerConfig`. */
export type McpServerConfig =
  McpStdioServerConfig | McpHttpServerConfig | McpSSEServerConfig | McpSdkServerConfigWithInstance;

/** Where a run's MCP server stands, as in the Claude Agent SDK's `McpServerStatus`. */
export interface McpServerStatus {
  /** The server's key in `mcpServers`. */
  name: string;
  status: "connected" | "failed";
  /** What the server says it is (when connected). */
  serverInfo?: { name: string; version: string };
  /** Why it failed (when failed). */
  error?: string;
}

const timeout = z.number().positive().finite().optional();
const headers = z.record(z.string(), z.string()).optional();
const url = z.url({ protocol: /^https?$/ });

const StdioConfig = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  timeout,
});

const SdkConfig = z.strictObject({
  type: z.literal("sdk"),
  name: z.string().min(1),
  instance: z.custom<McpServer>(
    (value) =>
      typeof value === "object" && value !== null && typeof (value as { connect?: unknown }).connect === "function",
    { message: "must be an MCP server (createSdkMcpServer)" },
  ),
  timeout,
});

/** `mcpServers` as `query()` checks it: a record of server name to config. */
export const McpServersOption = z.record(
  z.string().min(1),
  z.union([
    StdioConfig,
    z.strictObject({ type: z.literal("http"), url, headers, timeout }),
    z.strictObject({ type: z.literal("sse"), url, headers, timeout }),
    SdkConfig,
  ]),
);
