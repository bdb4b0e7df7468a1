import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError, type McpHttpServerConfig, type McpSSEServerConfig } from "../src/index.js";
import { authorizeMcpServer, OAuthTokenStore } from "../src/mcp/index.js";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { type OAuthMcpServer, startOAuthMcpServer } from "./mcp-oauth-server.js";
import { initOf } from "./mcp-support.js";

const CLI = resolve("dist/bin/gyre.js");
/** The formats where a tool result reaches the model differently: Anthropic and OpenAI. */
const WIRE_FORMATS = [FORMATS[0], FORMATS[1]] as const;

const whoamiScript = () => ({ turns: [mockTurn.toolUse("mcp__secure__whoami", {}), mockTurn.text("done")] });

let server: OAuthMcpServer;
let config: McpHttpServerConfig | McpSSEServerConfig;
// The tests' GYRE_HOME (test/global-setup.ts): what runs and the CLI read by default.
const store = new OAuthTokenStore();

beforeEach(async () => {
  server = await startOAuthMcpServer();
  config = { type: "http", url: server.url };
});

afterEach(async () => {
  await store.remove(server.url);
  await server.close();
});

/** Runs the browser step the way a person would: open the URL, the server redirects to the loopback. */
async function authorizeByBrowser(name = "secure") {
  const opened: Array<Promise<Response>> = [];
  const urls: URL[] = [];
  const result = await authorizeMcpServer(name, config, {
    store,
    onAuthorizationUrl: (url) => {
      urls.push(url);
      opened.push(fetch(url));
    },
  });
  const pages = await Promise.all(opened);
  return { result, urls, pages };
}

describe("MCP servers behind OAuth", () => {
  it.each(WIRE_FORMATS)(
    "no stored token: needs-auth in init, no client registered, the run completes ($name)",
    async (format) => {
      await withMock({ turns: [mockTurn.text("fine without it")] }, async (mock) => {
        const messages = await runQuery(mock, format, "hi", { tools: [], mcpServers: { secure: config } });
        const status = initOf(messages).mcp_servers[0];
        expect(status).toMatchObject({ name: "secure", status: "needs-auth" });
        expect(status?.error).toContain(`gyre mcp auth --url ${server.url}`);
        expect(initOf(messages).tools).toEqual([]);
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "fine without it" });
      });
      // A run never registers a client it could not use without a browser step.
      expect(server.auth.counts.registrations).toBe(0);
      expect(await store.read(server.url)).toBeUndefined();
    },
  );

  it("authorization code + PKCE + dynamic registration: tokens stored 0600, then a run calls the tool", async () => {
    const { result, urls, pages } = await authorizeByBrowser();
    expect(result).toMatchObject({ outcome: "authorized", toolCount: 1 });
    expect(pages.map((page) => page.status)).toEqual([200]);
    const url = urls[0] as URL;
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get("state")).toMatch(/^[\w-]{32}$/);
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(server.auth.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });

    const file = store.pathOf(server.url);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    const record = await store.read(server.url);
    const accessToken = record?.tokens?.access_token as string;
    expect(server.auth.accessTokens.has(accessToken)).toBe(true);
    expect(record?.codeVerifier).toBeUndefined();
    const clientId = record?.client?.client_id;
    expect(server.auth.clients.has(clientId as string)).toBe(true);

    for (const format of WIRE_FORMATS) {
      await withMock(whoamiScript(), async (mock) => {
        const messages = await runQuery(mock, format, "who am I?", {
          tools: [],
          mcpServers: { secure: config },
          allowedTools: ["mcp__secure"],
        });
        expect(initOf(messages).mcp_servers).toEqual([{ name: "secure", status: "connected" }]);
        const answer = `client ${clientId} with scopes [mcp:tools]`;
        expect(toolResults(messages)).toEqual([expect.objectContaining({ content: answer })]);
        expect(JSON.stringify(mock.requests[1]?.body)).toContain(answer);
        // The token went to the MCP server, and nowhere near the model or the messages.
        expect(server.seenTokens).toContain(accessToken);
        expect(JSON.stringify(messages)).not.toContain(accessToken);
        expect(JSON.stringify(mock.requests)).not.toContain(accessToken);
      });
    }
  });

  it("an expired access token is refreshed during the run, and the new tokens are stored", async () => {
    await authorizeByBrowser();
    const before = (await store.read(server.url))?.tokens as OAuthTokens;
    server.auth.expireAccessTokens();
    await withMock(whoamiScript(), async (mock) => {
      const messages = await runQuery(mock, FORMATS[0], "who am I?", {
        tools: [],
        mcpServers: { secure: config },
        allowedTools: ["mcp__secure"],
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "secure", status: "connected" }]);
      expect(String(toolResults(messages)[0]?.content)).toMatch(/^client \S+ with scopes \[mcp:tools\]$/);
    });
    expect(server.auth.counts.refreshes).toBe(1);
    expect(server.auth.counts.authorizations).toBe(1);
    const after = (await store.read(server.url))?.tokens as OAuthTokens;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(server.seenTokens).toContain(before.access_token);
    expect(server.seenTokens.at(-1)).toBe(after.access_token);
    expect((await stat(store.pathOf(server.url))).mode & 0o777).toBe(0o600);
  });

  it("a refused refresh token: needs-auth, and the dead tokens are forgotten", async () => {
    await authorizeByBrowser();
    server.auth.expireAccessTokens();
    server.auth.revokeRefreshTokens();
    await withMock({ turns: [mockTurn.text("ok")] }, async (mock) => {
      const messages = await runQuery(mock, FORMATS[0], "hi", { tools: [], mcpServers: { secure: config } });
      expect(initOf(messages).mcp_servers[0]).toMatchObject({ name: "secure", status: "needs-auth" });
    });
    const record = await store.read(server.url);
    expect(record?.tokens).toBeUndefined();
    expect(record?.client).toBeDefined();
    expect(server.auth.counts.authorizations).toBe(1);
  });

  it("a corrupt token file counts as absent: needs-auth, no crash", async () => {
    await authorizeByBrowser();
    await writeFile(store.pathOf(server.url), "{ not json");
    await withMock({ turns: [mockTurn.text("ok")] }, async (mock) => {
      const messages = await runQuery(mock, FORMATS[0], "hi", { tools: [], mcpServers: { secure: config } });
      expect(initOf(messages).mcp_servers[0]).toMatchObject({ name: "secure", status: "needs-auth" });
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("over the HTTP+SSE transport too: authorized, then a run calls the tool", async () => {
    config = { type: "sse", url: server.sseUrl };
    const { result } = await authorizeByBrowser();
    expect(result).toMatchObject({ outcome: "authorized", toolCount: 1 });
    const clientId = (await store.read(server.sseUrl))?.client?.client_id;
    await withMock(whoamiScript(), async (mock) => {
      const messages = await runQuery(mock, FORMATS[1], "who am I?", {
        tools: [],
        mcpServers: { secure: config },
        allowedTools: ["mcp__secure"],
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "secure", status: "connected" }]);
      expect(toolResults(messages)).toEqual([
        expect.objectContaining({ content: `client ${clientId} with scopes [mcp:tools]` }),
      ]);
    });
    await store.remove(server.sseUrl);
  });

  it("a library user's own authProvider is used instead of Gyre's stored tokens", async () => {
    const provider = new MemoryProvider();
    // The user's own flow: the browser step done by hand, the code exchanged with the SDK's auth().
    expect(await auth(provider, { serverUrl: server.url })).toBe("REDIRECT");
    const redirect = await fetch(provider.authorizationUrl as URL, { redirect: "manual" });
    const code = new URL(redirect.headers.get("location") as string).searchParams.get("code") as string;
    expect(await auth(provider, { serverUrl: server.url, authorizationCode: code })).toBe("AUTHORIZED");

    for (const format of WIRE_FORMATS) {
      await withMock(whoamiScript(), async (mock) => {
        const messages = await runQuery(mock, format, "who am I?", {
          tools: [],
          mcpServers: { secure: { ...config, authProvider: provider } },
          allowedTools: ["mcp__secure"],
        });
        expect(initOf(messages).mcp_servers).toEqual([{ name: "secure", status: "connected" }]);
        expect(toolResults(messages)).toEqual([
          expect.objectContaining({ content: `client ${provider.client?.client_id} with scopes [mcp:tools]` }),
        ]);
      });
    }
    expect(server.seenTokens).toContain(provider.saved?.access_token);
    // Nothing of Gyre's own store was used or written.
    expect(await store.read(server.url)).toBeUndefined();
  });

  it("a library user's authProvider that cannot authorize: needs-auth, the run goes on", async () => {
    const provider = new MemoryProvider();
    await withMock({ turns: [mockTurn.text("ok")] }, async (mock) => {
      const messages = await runQuery(mock, FORMATS[1], "hi", {
        tools: [],
        mcpServers: { secure: { ...config, authProvider: provider } },
      });
      expect(initOf(messages).mcp_servers[0]).toMatchObject({
        name: "secure",
        status: "needs-auth",
        error: expect.stringContaining("its authProvider did not authorize"),
      });
      expect(resultOf(messages).subtype).toBe("success");
    });
    expect(provider.authorizationUrl).toBeInstanceOf(URL);
  });

  it("stored tokens that work: authorizing again needs no browser step", async () => {
    await authorizeByBrowser();
    const again = await authorizeMcpServer("secure", config, {
      store,
      onAuthorizationUrl: () => {
        throw new Error("no browser step expected");
      },
    });
    expect(again).toMatchObject({ outcome: "already", toolCount: 1 });
    expect(server.auth.counts).toMatchObject({ registrations: 1, authorizations: 1 });
  });

  it("a denied authorization fails with mcp_auth_failed, and stores no tokens", async () => {
    server.auth.approve = false;
    const error = await authorizeByBrowser().catch((caught: unknown) => caught);
    expect(isGyreError(error) && error.code).toBe("mcp_auth_failed");
    expect(String(error)).toContain("access_denied");
    expect((await store.read(server.url))?.tokens).toBeUndefined();
  });

  it("no redirect in time: mcp_auth_failed, and the loopback listener is closed", async () => {
    let redirectUri = "";
    const error = await authorizeMcpServer("secure", config, {
      store,
      timeoutMs: 50,
      onAuthorizationUrl: (url) => {
        redirectUri = url.searchParams.get("redirect_uri") as string;
      },
    }).catch((caught: unknown) => caught);
    expect(isGyreError(error) && error.code).toBe("mcp_auth_failed");
    expect(String(error)).toContain("No authorization came back");
    await expect(fetch(redirectUri)).rejects.toThrow();
  });
});

/** Runs `gyre mcp auth ARGS` as a real process; `openUrl` plays the browser for the URL it prints. */
async function gyreMcpAuth(
  args: string[],
  openUrl: boolean,
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  const child = spawn(process.execPath, [CLI, "mcp", "auth", ...args], {
    env: cliEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd && { cwd: options.cwd }),
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines: string[] = [];
  let page: Response | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    if (openUrl && /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/.test(line)) page = await fetch(line);
  }
  return { code: await exited, stdout: lines.join("\n"), stderr, page };
}

describe("gyre mcp auth (the built CLI)", () => {
  it("prints the URL, takes the redirect on the loopback port, exits 0; a run then connects", async () => {
    const { code, stdout, stderr, page } = await gyreMcpAuth(["--url", server.url, "--name", "secure"], true);
    expect(code, stderr).toBe(0);
    expect(page?.status).toBe(200);
    expect(await page?.text()).toContain("You can close this tab");
    expect(stdout).toContain('Authorized MCP server "secure" (1 tool)');
    const record = await store.read(server.url);
    expect(record?.tokens).toBeDefined();
    expect(stdout + stderr).not.toContain(record?.tokens?.access_token);

    await withMock(whoamiScript(), async (mock) => {
      const messages = await runQuery(mock, FORMATS[0], "who am I?", {
        tools: [],
        mcpServers: { secure: config },
        allowedTools: ["mcp__secure"],
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "secure", status: "connected" }]);
      expect(toolResults(messages)).toEqual([
        expect.objectContaining({ content: `client ${record?.client?.client_id} with scopes [mcp:tools]` }),
      ]);
    });
  });

  it("NAME from the project's .mcp.json (${VAR} expanded); no browser coming back: exit 1 with mcp_auth_failed", async () => {
    const project = await mkdtemp(join(tmpdir(), "gyre-mcp-project-"));
    const servers = { mcpServers: { secure: { type: "http", url: "${SECURE_MCP_URL}" } } };
    await writeFile(join(project, ".mcp.json"), JSON.stringify(servers));
    const { code, stdout, stderr } = await gyreMcpAuth(["secure", "--timeout", "0.05"], false, {
      cwd: project,
      env: { SECURE_MCP_URL: server.url },
    });
    expect(code).toBe(1);
    expect(stdout).toContain('authorize Gyre with MCP server "secure"');
    expect(stderr).toContain("gyre: mcp_auth_failed: No authorization came back");
    expect((await store.read(server.url))?.tokens).toBeUndefined();
  });

  it("a NAME --mcp-config lacks: exit 1 with config_error", async () => {
    const json = JSON.stringify({ mcpServers: { other: { type: "http", url: server.url } } });
    const { code, stderr } = await gyreMcpAuth(["secure", "--mcp-config", json], false);
    expect(code).toBe(1);
    expect(stderr).toContain('gyre: config_error: --mcp-config has no MCP server named "secure"');
  });
});

/** A library user's provider: everything in memory; the browser step is left to its owner. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly redirectUrl = "http://127.0.0.1:1/callback";
  readonly clientMetadata = {
    client_name: "my app",
    redirect_uris: [this.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.client = client;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
