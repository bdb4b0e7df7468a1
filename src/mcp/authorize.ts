import { GYRE_VERSION } from "../version.js";
import { randomBytes } from "node:crypto";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import type { McpHttpServerConfig, McpSSEServerConfig } from "./config.js";
import { CONNECT_TIMEOUT_MS, connectServer, remoteTransport } from "./connect.js";
import { GyreOAuthProvider, listenForCallback, OAuthTokenStore } from "./oauth/index.js";

/** How long `authorizeMcpServer` waits for the person to approve in the browser. */
export const AUTHORIZE_TIMEOUT_MS = 5 * 60_000;

export interface AuthorizeMcpServerOptions {
  /** Shows the person the URL to open in a browser. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
  /** Default {@link AUTHORIZE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Where tokens are kept. Default: Gyre's user folder. */
  store?: OAuthTokenStore;
  signal?: AbortSignal;
}

export interface AuthorizeMcpServerResult {
  /** `already`: the stored tokens worked (or were refreshed) and no browser step was needed. */
  outcome: "authorized" | "already";
  /** Tools the server lists once authorized. */
  toolCount: number;
  serverInfo?: { name: string; version: string };
}

/**
 * Authorizes Gyre with a remote MCP server behind OAuth, the way a command-line client does:
 * a loopback listener on 127.0.0.1 takes the redirect, the MCP SDK registers the client
 * (dynamic registration, redirect URI = that listener), builds the PKCE authorization URL,
 * which `onAuthorizationUrl` shows, and exchanges the code (`finishAuth`) for tokens that are
 * stored for later runs. Then it connects once with the stored tokens to check them.
 */
export async function authorizeMcpServer(
  name: string,
  config: McpHttpServerConfig | McpSSEServerConfig,
  options: AuthorizeMcpServerOptions,
): Promise<AuthorizeMcpServerResult> {
  const store = options.store ?? new OAuthTokenStore();
  const signal = options.signal ?? new AbortController().signal;
  const state = randomBytes(24).toString("base64url");
  const listener = await listenForCallback({
    state,
    timeoutMs: options.timeoutMs ?? AUTHORIZE_TIMEOUT_MS,
    signal,
    ...(config.oauth?.callbackPort !== undefined && { port: config.oauth.callbackPort }),
  });
  try {
    const base = {
      serverName: name,
      serverUrl: config.url,
      transport: config.type,
      store,
      ...(config.oauth && { oauth: config.oauth }),
    };
    const provider = new GyreOAuthProvider({
      ...base,
      interactive: { redirectUrl: listener.redirectUrl, state, onAuthorizationUrl: options.onAuthorizationUrl },
    });
    const transport = remoteTransport(name, config, provider);
    const client = new Client({ name: "gyre", version: GYRE_VERSION });
    let redirected = false;
    try {
      await client.connect(transport, { signal, timeout: CONNECT_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw authFailed(name, error);
      redirected = true;
    } finally {
      await client.close().catch(() => {});
    }
    if (redirected) {
      const code = await listener.code;
      await transport.finishAuth(code).catch((error: unknown) => {
        throw authFailed(name, error);
      });
    }
    // Checked the way a run will use them: the stored tokens, no browser step.
    const connection = await connectServer(
      name,
      { ...config, authProvider: new GyreOAuthProvider(base) },
      { cwd: process.cwd(), signal },
    );
    await connection.close();
    const info = connection.client.getServerVersion();
    return {
      outcome: redirected ? "authorized" : "already",
      toolCount: connection.tools.length,
      ...(info && { serverInfo: { name: info.name, version: info.version } }),
    };
  } finally {
    await listener.close();
  }
}

function authFailed(name: string, error: unknown): GyreError {
  if (isGyreError(error)) return error;
  return new GyreError("mcp_auth_failed", `Authorizing MCP server "${name}" failed: ${errorMessage(error)}`, {
    cause: error,
  });
}
