import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidTokenError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

interface IssuedToken {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: URL;
}

/**
 * An OAuth authorization server in memory, as the MCP SDK's `OAuthServerProvider`: dynamic
 * registration, an authorize step that approves at once (it redirects to the client's
 * redirect URI with a code, as if a person had clicked "Allow"), PKCE (checked by the SDK's
 * token handler), rotating refresh tokens, and access tokens that can be expired on demand.
 */
class TestAuthorizationServer implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly #codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  readonly accessTokens = new Map<string, IssuedToken>();
  readonly #refreshTokens = new Map<string, IssuedToken>();
  readonly counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0 };
  /** What `authorize` answers: approve, or deny like a person clicking "Deny". */
  approve = true;

  constructor(readonly accessTokenTtlSeconds: number) {}

  get clientsStore() {
    return {
      getClient: (id: string) => this.clients.get(id),
      registerClient: (client: Omit<OAuthClientInformationFull, "client_id" | "client_id_issued_at">) => {
        this.counts.registrations++;
        const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: { redirect(url: string): void },
  ) {
    this.counts.authorizations++;
    if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidRequestError("Unregistered redirect_uri");
    const target = new URL(params.redirectUri);
    if (this.approve) {
      const code = randomUUID();
      this.#codes.set(code, { clientId: client.client_id, params });
      target.searchParams.set("code", code);
    } else {
      target.searchParams.set("error", "access_denied");
    }
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string) {
    const issued = this.#codes.get(code);
    if (!issued) throw new InvalidGrantError("Unknown authorization code");
    return issued.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const issued = this.#codes.get(code);
    if (!issued || issued.clientId !== client.client_id) throw new InvalidGrantError("Unknown authorization code");
    this.#codes.delete(code);
    this.counts.codeExchanges++;
    return this.#issue(client.client_id, issued.params.scopes ?? [], issued.params.resource);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.#refreshTokens.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("Unknown refresh token");
    this.#refreshTokens.delete(refreshToken);
    this.counts.refreshes++;
    return this.#issue(client.client_id, grant.scopes, grant.resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const issued = this.accessTokens.get(token);
    // The middleware answers 401 with WWW-Authenticate (and checks `expiresAt` itself).
    if (!issued) throw new InvalidTokenError("Unknown token");
    return {
      token,
      clientId: issued.clientId,
      scopes: issued.scopes,
      expiresAt: issued.expiresAt,
      ...(issued.resource && { resource: issued.resource }),
    };
  }

  /** Every access token issued so far is past its expiry from now on. */
  expireAccessTokens() {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** Refresh tokens are refused from now on (revoked, as after a password change). */
  revokeRefreshTokens() {
    this.#refreshTokens.clear();
  }

  #issue(clientId: string, scopes: string[], resource: URL | undefined): OAuthTokens {
    const grant = { clientId, scopes, ...(resource && { resource }) };
    const access = randomUUID();
    const refresh = randomUUID();
    this.accessTokens.set(access, { ...grant, expiresAt: Math.floor(Date.now() / 1000) + this.accessTokenTtlSeconds });
    this.#refreshTokens.set(refresh, { ...grant, expiresAt: 0 });
    return {
      access_token: access,
      token_type: "bearer",
      expires_in: this.accessTokenTtlSeconds,
      refresh_token: refresh,
      scope: scopes.join(" "),
    };
  }
}

export interface OAuthMcpServer {
  /** The MCP endpoint (streamable HTTP), behind bearer auth. */
  url: string;
  /** The same server over the older HTTP+SSE transport, behind the same auth. */
  sseUrl: string;
  auth: TestAuthorizationServer;
  /** Bearer tokens the MCP endpoints received, in order (what the client sent). */
  seenTokens: string[];
  close(): Promise<void>;
}

function whoamiServer(): McpServer {
  const mcp = new McpServer({ name: "oauth-test-server", version: "1.0.0" });
  mcp.registerTool("whoami", { description: "Who the bearer token says the caller is." }, async (extra) => ({
    content: [
      { type: "text", text: `client ${extra.authInfo?.clientId} with scopes [${extra.authInfo?.scopes.join(" ")}]` },
    ],
  }));
  return mcp;
}

type AuthedRequest = IncomingMessage & { auth?: AuthInfo; body: unknown };

/**
 * A real OAuth-protected MCP server on 127.0.0.1 (port 0), built from the MCP SDK's server-side
 * auth helpers: `mcpAuthRouter` (authorization server metadata, dynamic registration, authorize,
 * token, and RFC 9728 protected resource metadata) and `requireBearerAuth` in front of an MCP
 * server whose one tool, `whoami`, tells the caller who its token says it is; over streamable
 * HTTP at `/mcp` and HTTP+SSE at `/sse`.
 */
export async function startOAuthMcpServer(options: { accessTokenTtlSeconds?: number } = {}): Promise<OAuthMcpServer> {
  const auth = new TestAuthorizationServer(options.accessTokenTtlSeconds ?? 3600);
  const app = createMcpExpressApp({ host: "127.0.0.1" });
  const server: Server = await new Promise((resolve) => {
    const listening: Server = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const noLimit = { rateLimit: false as const };
  // The whole origin is the protected resource: both endpoints' URLs fall under it.
  app.use(
    mcpAuthRouter({
      provider: auth,
      issuerUrl: base,
      resourceServerUrl: base,
      scopesSupported: ["mcp:tools"],
      authorizationOptions: noLimit,
      tokenOptions: noLimit,
      clientRegistrationOptions: noLimit,
    }),
  );
  const seenTokens: string[] = [];
  // Records what the client sent, before bearer auth judges it.
  const record = (req: IncomingMessage, _res: ServerResponse, next: () => void) => {
    const header = req.headers.authorization;
    if (header?.startsWith("Bearer ")) seenTokens.push(header.slice("Bearer ".length));
    next();
  };
  const bearer = requireBearerAuth({ verifier: auth, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(base) });

  app.post("/mcp", record, bearer, async (req: AuthedRequest, res: ServerResponse) => {
    // Stateless: a fresh server and transport per request.
    const mcp = whoamiServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get("/mcp", (_req: IncomingMessage, res: ServerResponse) => res.writeHead(405).end());

  const sessions = new Map<string, SSEServerTransport>();
  app.get("/sse", record, bearer, async (_req: AuthedRequest, res: ServerResponse) => {
    const transport = new SSEServerTransport("/messages", res);
    const mcp = whoamiServer();
    sessions.set(transport.sessionId, transport);
    res.on("close", () => {
      sessions.delete(transport.sessionId);
      void mcp.close();
    });
    await mcp.connect(transport);
  });
  app.post("/messages", record, bearer, async (req: AuthedRequest, res: ServerResponse) => {
    const sessionId = new URL(req.url ?? "/", base).searchParams.get("sessionId") ?? "";
    const transport = sessions.get(sessionId);
    if (!transport) return void res.writeHead(404).end();
    await transport.handlePostMessage(req, res, req.body);
  });

  return {
    url: new URL("/mcp", base).href,
    sseUrl: new URL("/sse", base).href,
    auth,
    seenTokens,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
