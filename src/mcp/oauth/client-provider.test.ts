import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isGyreError } from "../../errors/index.js";
import { GyreOAuthProvider } from "./client-provider.js";
import { OAuthTokenStore } from "./token-store.js";

const serverUrl = "https://mcp.example.com/mcp";
const client = { client_id: "c1", redirect_uris: ["http://127.0.0.1:5000/callback"] };
const tokens = (name: string) => ({ access_token: `access-${name}`, token_type: "bearer", refresh_token: `r-${name}` });

async function setup() {
  const store = new OAuthTokenStore(join(await mkdtemp(join(tmpdir(), "gyre-oauth-")), "mcp-oauth"));
  const provider = (extra: Partial<ConstructorParameters<typeof GyreOAuthProvider>[0]> = {}) =>
    new GyreOAuthProvider({ serverName: "docs", serverUrl, store, ...extra });
  return { store, provider };
}

async function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("GyreOAuthProvider", () => {
  it("without a browser step and without stored tokens: mcp_needs_auth saying how to log in", async () => {
    const { provider } = await setup();
    const error = await rejection(provider().clientInformation());
    expect(isGyreError(error) && error.code).toBe("mcp_needs_auth");
    expect(String(error)).toContain(`gyre mcp auth --url ${serverUrl}`);
    const sse = await rejection(provider({ transport: "sse" }).clientInformation());
    expect(String(sse)).toContain("--transport sse");
    // Asked to send a person to the authorization URL: refused the same way, nothing opened.
    expect(isGyreError(await rejection(provider().redirectToAuthorization(new URL(serverUrl))))).toBe(true);
  });

  it("a verifier made without a browser step is never written", async () => {
    const { store, provider } = await setup();
    const run = provider();
    await run.saveCodeVerifier("v");
    expect(await run.codeVerifier()).toBe("v");
    expect(await store.read(serverUrl)).toBeUndefined();
  });

  it("a client registered for another loopback port is registered again by a browser step", async () => {
    const { store, provider } = await setup();
    await store.update(serverUrl, (record) => ({ ...record, client }));
    const interactive = (redirectUrl: string) =>
      provider({ interactive: { redirectUrl, state: "s", onAuthorizationUrl: () => {} } });
    expect(await interactive("http://127.0.0.1:6000/callback").clientInformation()).toBeUndefined();
    expect(await interactive("http://127.0.0.1:5000/callback").clientInformation()).toMatchObject(client);
  });

  it("a configured clientId and secret are used as they are", async () => {
    const { provider } = await setup();
    const configured = provider({ oauth: { clientId: "mine", clientSecret: "shh" } });
    expect(await configured.clientInformation()).toEqual({ client_id: "mine", client_secret: "shh" });
    expect(configured.clientMetadata.token_endpoint_auth_method).toBe("client_secret_post");
  });

  it("invalidating tokens drops only the ones it used: another run's fresh tokens stay", async () => {
    const { store, provider } = await setup();
    await store.update(serverUrl, (record) => ({ ...record, client, tokens: tokens("old") }));
    const slow = provider();
    expect((await slow.tokens())?.access_token).toBe("access-old");
    // Another run refreshed meanwhile (its refresh token rotated, so this one's refresh fails).
    await provider().saveTokens(tokens("new"));
    await slow.invalidateCredentials("tokens");
    expect((await store.read(serverUrl))?.tokens?.access_token).toBe("access-new");
    expect((await slow.tokens())?.access_token).toBe("access-new");
    await slow.invalidateCredentials("tokens");
    expect(await store.read(serverUrl)).toEqual({ serverUrl, client });
  });
});
