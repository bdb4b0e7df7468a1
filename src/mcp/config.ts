import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
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
   * Start the server inside the run's OS sandbox (the same limits as Bash: writes only in the
   * workspace, network only to the allowed domains). Needs `sandbox.enabled`; without it the
   * server fails to connect instead of running unconfined.
   */
  sandbox?: boolean;
  /**
   * Per-call timeout in milliseconds for this server's tools, counted from the call or its
   * last progress notification; the call is then cancelled. Default: `MCP_TOOL_TIMEOUT` from
   * the run's `env`. The run's `toolTimeoutMs` still bounds every call.
   */
  timeout?: number;
}

/**
 * How Gyre authorizes with a remote server that asks for OAuth (`gyre mcp auth`). Without
 * `clientId`, Gyre registers itself with the authorization server (dynamic registration).
 */
export interface McpOAuthOptions {
  /** A client registered beforehand (Claude Code's `--client-id`). */
  clientId?: string;
  /** Its secret, for a confidential client (`--client-secret`). */
  clientSecret?: string;
  /** The loopback port the browser is sent back to (default: any free port). */
  callbackPort?: number;
  /** Scopes to ask for (default: what the server advertises). */
  scopes?: string[];
}

/** A server reached over MCP's streamable HTTP transport. */
export interface McpHttpServerConfig {
  type: "http";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
  /** OAuth settings for `gyre mcp auth`. */
  oauth?: McpOAuthOptions;
  /**
   * The caller's own OAuth provider (the MCP SDK's `OAuthClientProvider`). Default: the tokens
   * `gyre mcp auth` keeps in Gyre's user folder, refreshed when they expire; a server that asks
   * for authorization without any is `needs-auth`. A server given an `Authorization` header
   * uses that header instead. `false`: no OAuth at all, only the headers given (`gyre serve`
   * connects a client's server so: never with the operator's stored tokens).
   */
  authProvider?: OAuthClientProvider | false;
  /**
   * The `fetch` every request to the server (and its OAuth endpoints) goes through. Default:
   * the global one. `gyre serve` gives one that connects only to addresses it checked.
   */
  fetch?: typeof globalThis.fetch;
}

/** A server reached over MCP's older HTTP+SSE transport. */
export interface McpSSEServerConfig {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
  /** OAuth settings for `gyre mcp auth`. */
  oauth?: McpOAuthOptions;
  /**
   * The caller's own OAuth provider (the MCP SDK's `OAuthClientProvider`). Default: the tokens
   * `gyre mcp auth` keeps in Gyre's user folder, refreshed when they expire; a server that asks
   * for authorization without any is `needs-auth`. A server given an `Authorization` header
   * uses that header instead. `false`: no OAuth at all, only the headers given (`gyre serve`
   * connects a client's server so: never with the operator's stored tokens).
   */
  authProvider?: OAuthClientProvider | false;
  /**
   * The `fetch` every request to the server (and its OAuth endpoints) goes through. Default:
   * the global one. `gyre serve` gives one that connects only to addresses it checked.
   */
  fetch?: typeof globalThis.fetch;
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

/**
 * Where a server stands: `pending` while connecting, `connected`, `failed` (with an error),
 * `needs-auth` (the server wants OAuth first), `disabled` (turned off with `toggleMcpServer`).
 */
export type McpServerState = "connected" | "failed" | "needs-auth" | "pending" | "disabled";

/** Where a run's MCP server stands, as in the Claude Agent SDK's `McpServerStatus`. */
export interface McpServerStatus {
  /** The server's key in `mcpServers`. */
  name: string;
  /** `needs-auth`: the server asks for OAuth authorization and no usable tokens are stored. */
  status: McpServerState;
  /** What the server says it is (when connected). */
  serverInfo?: { name: string; version: string };
  /** Why it failed, or how to authorize it (when not connected). */
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
  sandbox: z.boolean().optional(),
  timeout,
});

const oauth = z
  .strictObject({
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    callbackPort: z.number().int().min(1).max(65535).optional(),
    scopes: z.array(z.string().min(1)).optional(),
  })
  .optional();
const authProvider = z
  .custom<OAuthClientProvider | false>(
    (value) =>
      value === false ||
      (typeof value === "object" && value !== null && typeof (value as { tokens?: unknown }).tokens === "function"),
    { message: "must be an OAuthClientProvider (the MCP SDK's) or false" },
  )
  .optional();

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
    z.strictObject({ type: z.literal("http"), url, headers, timeout, oauth, authProvider }),
    z.strictObject({ type: z.literal("sse"), url, headers, timeout, oauth, authProvider }),
    SdkConfig,
  ]),
);
