import { createHash } from "node:crypto";
import { readFile, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { z } from "zod";
import { fsErrorCode } from "../../errors/index.js";
import { defaultSqlitePath } from "../../sessions/index.js";
import { writePrivateFile } from "./private-file.js";

/** What Gyre keeps about one OAuth-protected MCP server, in one file. */
export interface OAuthRecord {
  /** The server the record belongs to (the file name is its hash). */
  serverUrl: string;
  /** The client as registered with the authorization server (dynamic registration). */
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** PKCE code verifier of an authorization in progress. */
  codeVerifier?: string;
}

// Loose: what the SDK hands over is stored unchanged (its `issuer` stamp included).
const StoredRecord = z.object({
  serverUrl: z.string(),
  client: z.looseObject({ client_id: z.string() }).optional(),
  tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
  codeVerifier: z.string().optional(),
});

/**
 * The folder of stored OAuth records: `mcp-oauth/` in Gyre's user folder, the one that holds
 * the session database (`$GYRE_HOME`, else `$XDG_DATA_HOME/gyre`, else `~/.gyre`).
 */
export function defaultOAuthFolder(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(defaultSqlitePath(env)), "mcp-oauth");
}

/**
 * OAuth records kept as files, one per server URL (`<sha256 of the URL>.json`), readable by
 * the owner only. A file that cannot be read or parsed counts as absent: the server then
 * needs authorizing again, and the run never crashes on it.
 */
export class OAuthTokenStore {
  readonly folder: string;

  constructor(folder: string = defaultOAuthFolder()) {
    this.folder = folder;
  }

  /** The file that holds `serverUrl`'s record. */
  pathOf(serverUrl: string): string {
    const key = createHash("sha256").update(new URL(serverUrl).href).digest("hex").slice(0, 32);
    return join(this.folder, `${key}.json`);
  }

  async read(serverUrl: string): Promise<OAuthRecord | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathOf(serverUrl), "utf8");
    } catch {
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = StoredRecord.safeParse(json);
    // A record for another URL (a hash collision, a copied file) is not this server's.
    if (!parsed.success || parsed.data.serverUrl !== new URL(serverUrl).href) return undefined;
    return parsed.data as OAuthRecord;
  }

  /** Applies `change` to the stored record (or a new one), writes it back and returns it. */
  async update(serverUrl: string, change: (record: OAuthRecord) => OAuthRecord): Promise<OAuthRecord> {
    const href = new URL(serverUrl).href;
    const next = { ...change((await this.read(href)) ?? { serverUrl: href }), serverUrl: href };
    await writePrivateFile(this.pathOf(href), `${JSON.stringify(next, null, 2)}\n`);
    return next;
  }

  /** Forgets everything stored for `serverUrl`. */
  async remove(serverUrl: string): Promise<void> {
    try {
      await unlink(this.pathOf(serverUrl));
    } catch (error) {
      if (fsErrorCode(error) !== "ENOENT") throw error;
    }
  }
}
