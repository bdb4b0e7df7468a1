import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { GyreError } from "../../errors/index.js";
import type { McpOAuthOptions } from "../config.js";
import type { OAuthRecord, OAuthTokenStore } from "./token-store.js";

/** A browser step the provider may start: where the authorization server sends the person back. */
export interface InteractiveAuthorization {
  /** The loopback URL listening for the redirect. */
  redirectUrl: string;
  /** The `state` sent with the request and expected back. */
  state: string;
  /** Shows the person the URL to open. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
}

export interface GyreOAuthProviderOptions {
  /** The server's name in `mcpServers`, for messages. */
  serverName: string;
  serverUrl: string;
  /** The server's transport, for the login command a message suggests. Default `http`. */
  transport?: "http" | "sse";
  store: OAuthTokenStore;
  oauth?: McpOAuthOptions;
  /** Without it (a run), a server that needs a person to log in is reported, never prompted for. */
  interactive?: InteractiveAuthorization;
}

// Only a placeholder: without a browser step, no redirect ever happens; it must just be set,
// since the SDK takes a provider without one for a client-credentials client.
const NO_REDIRECT = "http://127.0.0.1/callback";

/**
 * The MCP SDK's `OAuthClientProvider` over Gyre's token files: the SDK's `auth()` does the
 * protocol (discovery, dynamic registration, PKCE, code exchange, refresh); this keeps what it
 * hands over, per server URL, in files only the owner can read. Tokens are never logged or
 * put in messages.
 */
export class GyreOAuthProvider implements OAuthClientProvider {
  readonly #options: GyreOAuthProviderOptions;
  #record: Promise<OAuthRecord | undefined> | undefined;
  /** A verifier made without a browser step is thrown away; it is never written. */
  #transientVerifier: string | undefined;

  constructor(options: GyreOAuthProviderOptions) {
    this.#options = options;
  }

  get redirectUrl(): string {
    return this.#options.interactive?.redirectUrl ?? NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { oauth } = this.#options;
    return {
      client_name: "Gyre",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: oauth?.clientSecret ? "client_secret_post" : "none",
      ...(oauth?.scopes && { scope: oauth.scopes.join(" ") }),
    };
  }

  state(): string {
    return this.#options.interactive?.state ?? "";
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { oauth, interactive } = this.#options;
    if (oauth?.clientId) {
      return { client_id: oauth.clientId, ...(oauth.clientSecret && { client_secret: oauth.clientSecret }) };
    }
    const record = await this.#read();
    const client = record?.client;
    if (!interactive) {
      // Registering a client no browser step will use would only leave a stray registration.
      if (!client || !record?.tokens) throw this.#needsAuth();
      return client;
    }
    // Registered for another loopback port: register again for this one.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    return client && uris?.includes(interactive.redirectUrl) !== false ? client : undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.#update((record) => ({ ...record, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.#read())?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#transientVerifier = undefined;
    await this.#update(({ codeVerifier: _, ...record }) => ({ ...record, tokens }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const { interactive } = this.#options;
    if (!interactive) throw this.#needsAuth();
    await interactive.onAuthorizationUrl(url);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (!this.#options.interactive) {
      this.#transientVerifier = codeVerifier;
      return;
    }
    await this.#update((record) => ({ ...record, codeVerifier }));
  }

  async codeVerifier(): Promise<string> {
    const verifier = this.#transientVerifier ?? (await this.#read())?.codeVerifier;
    if (!verifier) {
      throw new GyreError(
        "mcp_auth_failed",
        `No authorization of MCP server "${this.#options.serverName}" is in progress`,
      );
    }
    return verifier;
  }

  /**
   * Forgets what the server refused. Only what this provider itself used is dropped: another run
   * may have refreshed the tokens meanwhile (a rotated refresh token makes the slower one fail),
   * and the SDK then retries with what is stored now.
   */
  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "discovery") return;
    const held = await this.#read();
    const drop = (part: "client" | "tokens" | "verifier") => scope === "all" || scope === part;
    await this.#update(({ client, tokens, codeVerifier, ...record }) => {
      const sameClient = client?.client_id === held?.client?.client_id;
      const sameTokens = tokens?.access_token === held?.tokens?.access_token;
      return {
        ...record,
        ...(client && !(drop("client") && sameClient) && { client }),
        ...(tokens && !(drop("tokens") && sameTokens) && { tokens }),
        ...(codeVerifier && !drop("verifier") && { codeVerifier }),
      };
    });
  }

  /** The stored record, read once per provider: the transport asks for tokens on every request. */
  #read(): Promise<OAuthRecord | undefined> {
    this.#record ??= this.#options.store.read(this.#options.serverUrl);
    return this.#record;
  }

  /** Changes the record as stored now (not as first read), so another run's save is kept. */
  async #update(change: (record: OAuthRecord) => OAuthRecord): Promise<void> {
    const { store, serverUrl } = this.#options;
    const next = await store.update(serverUrl, change);
    this.#record = Promise.resolve(next);
  }

  #needsAuth(): GyreError {
    const { serverName, serverUrl, transport } = this.#options;
    const flags = `--url ${serverUrl}${transport === "sse" ? " --transport sse" : ""}`;
    return new GyreError(
      "mcp_needs_auth",
      `MCP server "${serverName}" needs authorization: run \`gyre mcp auth ${flags}\` ` +
        "(or pass an authProvider in its config)",
    );
  }
}
