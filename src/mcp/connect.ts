import { resolve } from "node:path";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import { GYRE_VERSION } from "../version.js";
import type { McpHttpServerConfig, McpServerConfig, McpSSEServerConfig } from "./config.js";
import { GyreOAuthProvider, OAuthTokenStore } from "./oauth/index.js";
import { answerElicitations, ELICITATION_CAPABILITY, type OnElicitation } from "./elicitation.js";
import { serverForConnection } from "./in-process-server.js";
import { watched } from "./stdio-watchdog.js";
import { tracedFetch } from "./trace-propagation.js";

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
  /** Answers servers' requests for user input; without it the client does not offer elicitation. */
  onElicitation?: OnElicitation;
  /**
   * The run's OS sandbox, for stdio servers with `sandbox: true` (undefined: the run has none,
   * and such a server fails to connect rather than run unconfined).
   */
  sandbox?: Promise<McpCommandSandbox | undefined>;
}

/** What starting a stdio server inside the OS sandbox needs (src/sandbox implements it). */
export interface McpCommandSandbox {
  /** The program and arguments that start the server inside the sandbox; `searchPath`: the PATH it starts with. */
  wrapServer(
    file: string,
    args: readonly string[],
    cwd: string,
    searchPath: string | undefined,
  ): { file: string; args: string[] };
}

/**
 * Connects to one server and lists its tools. On failure everything started is closed and a
 * `mcp_connection_failed` error is thrown, with a stdio server's last stderr output in its message;
 * a remote server that asks for OAuth authorization Gyre does not have gives `mcp_needs_auth`.
 */
export async function connectServer(
  name: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  const stderr = { text: "" };
  const sandbox = await sandboxFor(name, config, options);
  const { transport, pair } = createTransport(name, config, options.cwd, stderr, sandbox);
  const { onElicitation } = options;
  const client = new Client(
    { name: "gyre", version: GYRE_VERSION },
    onElicitation ? { capabilities: ELICITATION_CAPABILITY } : undefined,
  );
  if (onElicitation) answerElicitations(client, name, onElicitation, options.signal);
  const close = async () => {
    await client.close().catch(() => {});
    await pair?.close().catch(() => {});
  };
  try {
    if (config.type === "sdk") await serverForConnection(config).connect(pair as Transport);
    const request = { signal: options.signal, timeout: CONNECT_TIMEOUT_MS };
    await client.connect(transport, request);
    const tools = await listAllTools(client, request);
    return { client, tools, close };
  } catch (error) {
    await close();
    if (isGyreError(error) && error.code === "mcp_needs_auth") throw error;
    if (error instanceof UnauthorizedError) {
      throw new GyreError(
        "mcp_needs_auth",
        `MCP server "${name}" needs authorization: its authProvider did not authorize`,
        {
          cause: error,
        },
      );
    }
    const detail = stderr.text.trim();
    throw new GyreError(
      "mcp_connection_failed",
      `MCP server "${name}" could not be connected: ${errorMessage(error)}${detail ? `\nstderr: ${detail}` : ""}`,
      { cause: error },
    );
  }
}

/** Every tool the server lists, page after page. */
export async function listAllTools(client: Client, request: RequestOptions): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/**
 * The transport to a remote server, authorized by `authProvider`; Gyre's stored tokens by default,
 * none when the config sets its own `Authorization` header.
 */
export function remoteTransport(
  name: string,
  config: McpHttpServerConfig | McpSSEServerConfig,
  authProvider: OAuthClientProvider | undefined = defaultAuthProvider(name, config),
): StreamableHTTPClientTransport | SSEClientTransport {
  const options = {
    requestInit: { headers: config.headers },
    ...(authProvider && { authProvider }),
    fetch: tracedFetch(config.fetch),
  };
  return config.type === "http"
    ? new StreamableHTTPClientTransport(new URL(config.url), options)
    : new SSEClientTransport(new URL(config.url), options);
}

function defaultAuthProvider(name: string, config: McpHttpServerConfig | McpSSEServerConfig) {
  if (config.authProvider === false) return undefined;
  if (config.authProvider) return config.authProvider;
  if (Object.keys(config.headers ?? {}).some((header) => header.toLowerCase() === "authorization")) return undefined;
  return new GyreOAuthProvider({
    serverName: name,
    serverUrl: config.url,
    transport: config.type,
    store: new OAuthTokenStore(),
    ...(config.oauth && { oauth: config.oauth }),
  });
}

function createTransport(
  name: string,
  config: McpServerConfig,
  cwd: string,
  stderr: { text: string },
  sandbox?: McpCommandSandbox,
): { transport: Transport; pair?: Transport } {
  switch (config.type) {
    case "http":
    case "sse":
      return { transport: remoteTransport(name, config) };
    case "sdk": {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      return { transport: clientSide, pair: serverSide };
    }
    default: {
      const directory = resolve(cwd, config.cwd ?? ".");
      const searchPath = config.env?.PATH ?? process.env.PATH;
      const started = sandbox?.wrapServer(config.command, config.args ?? [], directory, searchPath);
      const { command, args, env } = watched({
        command: started?.file ?? config.command,
        args: started?.args ?? config.args ?? [],
        env: config.env,
      });
      const transport = new StdioClientTransport({
        command,
        args,
        ...(env && { env }),
        cwd: directory,
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr.text = (stderr.text + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      return { transport };
    }
  }
}

/** The sandbox a stdio server with `sandbox: true` starts in; such a server never starts unconfined. */
async function sandboxFor(
  name: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<McpCommandSandbox | undefined> {
  if ((config.type ?? "stdio") !== "stdio" || !("sandbox" in config) || config.sandbox !== true) return undefined;
  const sandbox = await options.sandbox;
  if (sandbox) return sandbox;
  throw new GyreError(
    "mcp_connection_failed",
    `MCP server "${name}" asks for sandbox: true, but the run's sandbox is not enabled (sandbox.enabled); it was not started.`,
  );
}
