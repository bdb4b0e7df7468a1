import type { Database } from "better-sqlite3";
import { GyreError } from "../errors/index.js";
import { moveLegacyRecords } from "./sqlite-legacy-records.js";
import { keepAlive } from "./sqlite-keep-alive.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Moves data in ways SQL alone does not say well; runs after `sql`, in its transaction. */
  migrate?: (db: Database, now: number) => void;
}

/** Append only: a released migration never changes; a new version fixes forward. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, messages, parts, checkpoints, locks",
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        cwd TEXT NOT NULL,
        title TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        parent_id TEXT,
        forked_from_message TEXT,
        state TEXT NOT NULL
      );
      CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id DESC);
      CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at DESC, id DESC);
      CREATE TABLE session_messages (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        uuid TEXT NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq),
        UNIQUE (session_id, uuid)
      );
      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX messages_by_session ON messages (session_id, seq);
      CREATE TABLE parts (
        id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        ord INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX parts_by_session ON parts (session_id, seq, ord);
      CREATE TABLE checkpoints (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        message_uuid TEXT NOT NULL,
        message_seq INTEGER NOT NULL,
        file_path TEXT NOT NULL,
        content_before BLOB,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, message_uuid, file_path)
      );
      CREATE TABLE session_locks (
        session_id TEXT PRIMARY KEY,
        token TEXT NOT NULL,
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        acquired_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "derived rows kept with their raw message; no indexes on updated_at",
    // An append used to dirty about fifteen B-tree pages: a rowid tree plus two indexes for
    // each of session_messages, messages and parts, and two indexes on sessions.updated_at,
    // which every append changes. Now the reducer's output for a message (its new message
    // row and its new or changed parts) is stored in that message's own row, and a reader
    // replays those rows in order, a part keeping the place where it first appeared and the
    // content of its last version (what the upserts into parts gave). Sessions are few:
    // listing them sorts the table instead of keeping two indexes current on every append.
    sql: `
      DROP INDEX sessions_by_update;
      DROP INDEX sessions_by_cwd;
      CREATE INDEX sessions_by_cwd ON sessions (cwd);

      ALTER TABLE session_messages ADD COLUMN derived_messages TEXT;
      ALTER TABLE session_messages ADD COLUMN derived_parts TEXT;
      UPDATE session_messages AS raw SET
        derived_messages = (
          SELECT json_group_array(json(m.data) ORDER BY m.id) FROM messages AS m
          WHERE m.session_id = raw.session_id AND m.seq = raw.seq
          HAVING count(*) > 0
        ),
        derived_parts = (
          SELECT json_group_array(json(p.data) ORDER BY p.ord) FROM parts AS p
          WHERE p.session_id = raw.session_id AND p.seq = raw.seq
          HAVING count(*) > 0
        );
      DROP TABLE messages;
      DROP TABLE parts;
    `,
  },
  {
    version: 3,
    name: "sessions keyed by project; imported project databases",
    // One database in the user's data folder holds the sessions of every project; a session
    // made before belongs to the project it ran in. imported_databases records the old
    // per-project files already copied in, so each is imported once.
    sql: `
      ALTER TABLE sessions ADD COLUMN project TEXT;
      UPDATE sessions SET project = cwd;
      CREATE INDEX sessions_by_project ON sessions (project);
      CREATE TABLE imported_databases (
        path TEXT PRIMARY KEY,
        project TEXT NOT NULL,
        sessions INTEGER NOT NULL,
        imported_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: "subagent sessions linked to the parent's Agent call",
    // A subagent's transcript is a session of its own: parent_id names the parent session (as
    // for a fork) and parent_tool_use_id the Agent call, which also tells it from a fork.
    sql: `
      ALTER TABLE sessions ADD COLUMN parent_tool_use_id TEXT;
      CREATE INDEX sessions_by_parent ON sessions (parent_id);
    `,
  },
  {
    version: 5,
    name: "gyre serve's responses, their input items and events, and conversations in tables of their own",
    // They were sessions of synthetic messages carrying them (see legacy-records.ts): every
    // version of a response a new message, read back by parsing them all, and conversations
    // replayed from their changes. Those sessions are moved into the new tables and deleted
    // (a response's run keeps its session). The partial index finds the responses still to
    // finish (a run to take over) without indexing every finished one.
    sql: `
      CREATE TABLE responses (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        status TEXT NOT NULL,
        run_session_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX responses_unfinished ON responses (updated_at) WHERE status IN ('queued', 'in_progress');
      CREATE TABLE response_input_items (
        response_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (response_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE response_events (
        response_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (response_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE TABLE conversation_items (
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX conversation_items_by_id ON conversation_items (conversation_id, item_id);
    `,
    migrate: moveLegacyRecords,
  },
];

/**
 * Brings the schema up to date: each migration not yet in `gyre_migrations` runs once, in
 * its own IMMEDIATE transaction (so two processes opening one file cannot both run it).
 * A database from a newer Gyre is refused rather than misread.
 */
export function migrateSqlite(
  db: Database,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
  now = Date.now(),
): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS gyre_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  // Kept alive for the reason in sqlite-keep-alive.ts.
  const applied = keepAlive(
    db.prepare<[number], { version: number }>("SELECT version FROM gyre_migrations WHERE version = ?"),
  );
  const record = keepAlive(db.prepare("INSERT INTO gyre_migrations (version, name, applied_at) VALUES (?, ?, ?)"));
  const newest = keepAlive(
    db.prepare<[], { version: number | null }>("SELECT MAX(version) AS version FROM gyre_migrations"),
  );
  const known = migrations.reduce((max, migration) => Math.max(max, migration.version), 0);
  const found = newest.get()?.version ?? 0;
  if (found > known) {
    throw new GyreError(
      "session_store_error",
      `Session database schema version ${found} is newer than this Gyre supports (${known})`,
    );
  }
  for (const migration of migrations) {
    db.transaction(() => {
      if (applied.get(migration.version)) return;
      db.exec(migration.sql);
      migration.migrate?.(db, now);
      record.run(migration.version, migration.name, now);
    }).immediate();
  }
}
