import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, GyreError } from "../errors/index.js";
import type { McpServerConfig } from "./config.js";
import { serverForConnection } from "./sdk-server.js";

/** How long a server may take to start, initialize and list its tools (Claude Code's default too). */
export const CONNECT_TIMEOUT_MS = 30_000;
/** The tail of a stdio server's stderr kept to explain a failure. */
const STDERR_TAIL = 2000;

/** A server the run is connected to. */
export interface McpConnection {
  client: Client;
  tools: McpToolInfo[];
  /** Closes the client and its transport (a stdio child is ended: stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The run's working directory: the default `cwd` of stdio servers. */
  cwd: string;
  signal: AbortSignal;
}

/**
 * Connects to one server and lists its tools. On failure everything started is closed and a
 * `mcp_connection_failed` error is thrown, with a stdio server's last stderr output in its message.
 */
export async function connectServer(
  name: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  const stderr = { text: "" };
  const { transport, pair } = createTransport(config, options.cwd, stderr);
  const client = new Client({ name: "gyre", version: "0.1.0" });
  const close = async () => {
    await client.close().catch(() => {});
    await pair?.close().catch(() => {});
  };
  try {
    if (config.type === "sdk") await serverForConnection(config).connect(pair as Transport);
    const request = { signal: options.signal, timeout: CONNECT_TIMEOUT_MS };
    await client.connect(transport, request);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { client, tools, close };
  } catch (error) {
    await close();
    const detail = stderr.text.trim();
    throw new GyreError(
      "mcp_connection_failed",
      `MCP server "${name}" could not be connected: ${errorMessage(error)}${detail ? `\nstderr: ${detail}` : ""}`,
      { cause: error },
    );
  }
}

function createTransport(
  config: McpServerConfig,
  cwd: string,
  stderr: { text: string },
): { transport: Transport; pair?: Transport } {
  switch (config.type) {
    case "http":
      return {
        transport: new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
      };
    case "sse":
      return { transport: new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }) };
    case "sdk": {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      return { transport: clientSide, pair: serverSide };
    }
    default: {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        ...(config.env && { env: config.env }),
        cwd: resolve(cwd, config.cwd ?? "."),
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr.text = (stderr.text + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      return { transport };
    }
  }
}
