import type { PgClientLike } from "./postgres-driver.js";
import { GyreError } from "../errors/index.js";
import { moveLegacyRecords } from "./postgres-legacy-records.js";

export interface PostgresMigration {
  version: number;
  name: string;
  /** SQL for the schema named by `s` (already quoted). */
  sql: (s: string) => string;
  /** Moves data in ways SQL alone does not say well; runs after `sql`, in its transaction. */
  migrate?: (client: PgClientLike, s: string) => Promise<void>;
}

/** Append only: a released migration never changes; a new version fixes forward. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "sessions, messages, parts, checkpoints, lock owners",
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        id text PRIMARY KEY,
        cwd text NOT NULL,
        title text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        parent_id text,
        forked_from_message text,
        state text NOT NULL
      );
      CREATE INDEX sessions_by_update ON ${s}.sessions (updated_at DESC, id DESC);
      CREATE INDEX sessions_by_cwd ON ${s}.sessions (cwd, updated_at DESC, id DESC);
      CREATE TABLE ${s}.session_messages (
        session_id text NOT NULL,
        seq integer NOT NULL,
        uuid text NOT NULL,
        type text NOT NULL,
        data text NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (session_id, seq),
        UNIQUE (session_id, uuid)
      );
      CREATE TABLE ${s}.messages (
        id text PRIMARY KEY,
        session_id text NOT NULL,
        seq integer NOT NULL,
        data text NOT NULL
      );
      CREATE INDEX messages_by_session ON ${s}.messages (session_id, seq);
      CREATE TABLE ${s}.parts (
        id text PRIMARY KEY,
        message_id text NOT NULL,
        session_id text NOT NULL,
        seq integer NOT NULL,
        ord integer NOT NULL,
        type text NOT NULL,
        data text NOT NULL
      );
      CREATE INDEX parts_by_session ON ${s}.parts (session_id, seq, ord);
      CREATE TABLE ${s}.checkpoints (
        id bigserial PRIMARY KEY,
        session_id text NOT NULL,
        message_uuid text NOT NULL,
        message_seq integer NOT NULL,
        file_path text NOT NULL,
        content_before bytea,
        created_at bigint NOT NULL,
        UNIQUE (session_id, message_uuid, file_path)
      );
      CREATE TABLE ${s}.session_lock_owners (
        session_id text PRIMARY KEY,
        token text NOT NULL,
        owner text NOT NULL,
        pid integer NOT NULL,
        host text NOT NULL,
        acquired_at bigint NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "sessions keyed by project",
    sql: (s) => `
      ALTER TABLE ${s}.sessions ADD COLUMN project text;
      UPDATE ${s}.sessions SET project = cwd;
      ALTER TABLE ${s}.sessions ALTER COLUMN project SET NOT NULL;
      CREATE INDEX sessions_by_project ON ${s}.sessions (project, updated_at DESC, id DESC);
    `,
  },
  {
    version: 3,
    name: "subagent sessions linked to the parent's Agent call",
    // parent_id names the parent session (as for a fork); parent_tool_use_id the Agent call.
    sql: (s) => `
      ALTER TABLE ${s}.sessions ADD COLUMN parent_tool_use_id text;
      CREATE INDEX sessions_by_parent ON ${s}.sessions (parent_id);
    `,
  },
  {
    version: 4,
    name: "gyre serve's responses, their input items and events, and conversations in tables of their own",
    // As SQLite's migration 5 (see there): the sessions that carried them are moved in and deleted.
    sql: (s) => `
      CREATE TABLE ${s}.responses (
        id text PRIMARY KEY,
        owner text NOT NULL,
        status text NOT NULL,
        run_session_id text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        data text NOT NULL
      );
      CREATE INDEX responses_unfinished ON ${s}.responses (updated_at) WHERE status IN ('queued', 'in_progress');
      CREATE TABLE ${s}.response_input_items (
        response_id text NOT NULL,
        seq integer NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (response_id, seq)
      );
      CREATE TABLE ${s}.response_events (
        response_id text NOT NULL,
        seq integer NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (response_id, seq)
      );
      CREATE TABLE ${s}.conversations (
        id text PRIMARY KEY,
        owner text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        data text NOT NULL
      );
      CREATE TABLE ${s}.conversation_items (
        conversation_id text NOT NULL,
        seq integer NOT NULL,
        item_id text NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      );
      CREATE INDEX conversation_items_by_id ON ${s}.conversation_items (conversation_id, item_id);
    `,
    migrate: moveLegacyRecords,
  },
];

/** A transaction-scoped advisory lock key, so instances starting together migrate one at a time. */
const MIGRATION_LOCK = "gyre:migrations:";

/**
 * Creates the schema if needed and runs each migration not yet recorded in
 * `<schema>.gyre_migrations` once, each in its own transaction under an advisory lock, so
 * several server instances starting at once neither collide nor run a migration twice.
 */
export async function migratePostgres(
  client: PgClientLike,
  schema: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  const s = quoteIdentifier(schema);
  await inTransaction(client, schema, async () => {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.gyre_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  const known = migrations.reduce((max, migration) => Math.max(max, migration.version), 0);
  const newest = await client.query<{ version: number | null }>(
    `SELECT MAX(version) AS version FROM ${s}.gyre_migrations`,
  );
  const found = newest.rows[0]?.version ?? 0;
  if (found > known) {
    throw new GyreError(
      "session_store_error",
      `Session schema ${schema} is at version ${found}, newer than this Gyre supports (${known})`,
    );
  }
  for (const migration of migrations) {
    await inTransaction(client, schema, async () => {
      const done = await client.query(`SELECT 1 FROM ${s}.gyre_migrations WHERE version = $1`, [migration.version]);
      if (done.rowCount) return;
      await client.query(migration.sql(s));
      await migration.migrate?.(client, s);
      await client.query(`INSERT INTO ${s}.gyre_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    });
  }
}

async function inTransaction(client: PgClientLike, schema: string, work: () => Promise<void>): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [MIGRATION_LOCK + schema]);
    await work();
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** `"name"` with inner quotes doubled: safe to splice into SQL as an identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
