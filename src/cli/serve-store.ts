import { errorMessage, GyreError } from "../errors/index.js";
import {
  defaultSqlitePath,
  openPostgresSessionStore,
  openSqliteSessionStore,
  type SessionStore,
} from "../sessions/index.js";

/** Where `gyre serve` keeps sessions, responses and conversations, and who said so (`--store`, `GYRE_STORE_URL` …). */
export type StoreLocation = { source: string } & (
  | { kind: "sqlite"; path: string }
  /** `url` without `schema`, which names the schema (default `public`); `shown`: the URL without its password. */
  | { kind: "postgres"; url: string; schema?: string; shown: string }
);

/** How long `gyre serve` waits for a PostgreSQL connection before the operation fails. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The store a `gyre serve` asks for: `--store URL` (or the older `--db FILE`), else
 * `GYRE_STORE_URL`, else Gyre's own SQLite file. `sqlite:PATH` (also `sqlite://PATH`) or
 * `postgres://…`/`postgresql://…` (`?schema=NAME` picks the schema); anything else is a
 * `config_error` naming where the URL came from.
 */
export function storeLocation(flags: { store?: string; db?: string }, env: NodeJS.ProcessEnv): StoreLocation {
  if (flags.store !== undefined && flags.db !== undefined)
    throw new GyreError(
      "config_error",
      "gyre serve: give --store or --db, not both (--db FILE is --store sqlite:FILE)",
    );
  if (flags.db !== undefined) return { kind: "sqlite", path: flags.db, source: "--db" };
  if (flags.store !== undefined) return parseStoreUrl(flags.store, "--store");
  const fromEnv = env.GYRE_STORE_URL;
  if (fromEnv) return parseStoreUrl(fromEnv, "GYRE_STORE_URL");
  return { kind: "sqlite", path: defaultSqlitePath(), source: "the default" };
}

/** `url` as a store location; `source` (a flag, a variable) names it in errors. */
export function parseStoreUrl(url: string, source: string): StoreLocation {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === "sqlite") {
    const path = url.slice("sqlite:".length).replace(/^\/\//, "");
    if (path === "") throw new GyreError("config_error", `gyre serve: ${source} ${url}: no file after sqlite:`);
    return { kind: "sqlite", path, source };
  }
  if (scheme === "postgres" || scheme === "postgresql") return postgresLocation(url, source);
  throw new GyreError(
    "config_error",
    `gyre serve: ${source} ${shownUrl(url)}: unknown store scheme ${scheme ? `"${scheme}:"` : "(none)"}; ` +
      "use sqlite:PATH or postgres://USER@HOST:PORT/DATABASE",
  );
}

function postgresLocation(url: string, source: string): StoreLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new GyreError("config_error", `gyre serve: ${source} ${shownUrl(url)}: not a valid URL`, { cause: error });
  }
  const schema = parsed.searchParams.get("schema") ?? undefined;
  parsed.searchParams.delete("schema");
  return { kind: "postgres", url: parsed.toString(), ...(schema && { schema }), shown: shownUrl(url), source };
}

/** The URL as it may be printed: without a password. */
function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
}

/**
 * Opens the store `gyre serve` runs on. SQLite leaves its checkpoints to a worker thread, so
 * that no response's commit waits for one. PostgreSQL that cannot be reached (or refuses) is a
 * `session_store_error` naming the URL and where it came from; one that does not answer fails
 * after 10 s, as does any wait for a connection later (a database in trouble fails the
 * operation rather than holding it forever).
 */
export async function openServeStore(location: StoreLocation): Promise<SessionStore> {
  if (location.kind === "sqlite") return openSqliteSessionStore({ path: location.path, checkpoints: "background" });
  try {
    return await openPostgresSessionStore({
      connectionString: location.url,
      connectionTimeoutMs: CONNECT_TIMEOUT_MS,
      ...(location.schema && { schema: location.schema }),
    });
  } catch (error) {
    throw new GyreError(
      "session_store_error",
      `gyre serve: cannot open the store, PostgreSQL at ${location.shown} (${location.source}): ${causeOf(error)}`,
      { cause: error },
    );
  }
}

/** What went wrong underneath the store's own wrapping (its message repeats the schema, not the cause). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return errorMessage(cause instanceof Error ? cause : error);
}
