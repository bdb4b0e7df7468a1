import { createRequire } from "node:module";
import { errorMessage, fsErrorCode, GyreError } from "../errors/index.js";

/** What a query returns, as the PostgreSQL store reads it (pg's `QueryResult`). */
export interface PgQueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
}

/** A client checked out of a pool, as the PostgreSQL store uses it (pg's `PoolClient`). */
export interface PgClientLike {
  // `any` as in pg's own default: rows are typed where each query is written.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<Row = any>(text: string, values?: unknown[]): Promise<PgQueryResult<Row>>;
  on(event: "error", listener: (error: Error) => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
  release(error?: Error | boolean): void;
}

/**
 * A connection pool, as the PostgreSQL store uses it: a `pg` `Pool` fits. Declared here so
 * that Gyre's types do not need `@types/pg` (or `pg` at all) in programs that never use
 * PostgreSQL.
 */
export interface PgPoolLike {
  connect(): Promise<PgClientLike>;
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
  readonly ended: boolean;
}

/**
 * A new `pg` pool for `connectionString`. `pg` is an optional peer dependency, loaded only
 * here, when a PostgreSQL store is opened: without it, a `missing_dependency` error says
 * what to install. It is required, not imported: the CLI bundle runs as a script compiled
 * with V8's code cache, and on Node 20 a script loaded from that cache has no loader for
 * `import()` ("A dynamic import callback was not specified").
 */
export async function createPgPool(
  connectionString: string | undefined,
  connectionTimeoutMillis?: number,
): Promise<PgPoolLike> {
  let pg: (typeof import("pg"))["default"];
  try {
    pg = createRequire(import.meta.url)("pg") as typeof pg;
  } catch (error) {
    if (!isMissingPg(error)) throw error;
    throw new GyreError("missing_dependency", "openPostgresSessionStore needs the `pg` package: npm install pg", {
      cause: error,
    });
  }
  return new pg.Pool({ connectionString, ...(connectionTimeoutMillis && { connectionTimeoutMillis }) });
}

/** `pg` itself cannot be found (not a module that pg, once found, fails to load). */
function isMissingPg(error: unknown): boolean {
  const code = fsErrorCode(error);
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return /['"]pg['"]/.test(errorMessage(error));
}
