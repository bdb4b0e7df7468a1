import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { openDatabase } from "./sqlite-driver.js";
import { keepAlive } from "./sqlite-keep-alive.js";
import { migrateSqlite } from "./sqlite-migrations.js";

const SESSION_COLUMNS =
  "id, cwd, title, created_at, updated_at, parent_id, forked_from_message, state, parent_tool_use_id";
const MESSAGE_COLUMNS = "session_id, seq, uuid, type, data, created_at, derived_messages, derived_parts";
const CHECKPOINT_COLUMNS = "session_id, message_uuid, message_seq, file_path, content_before, created_at";
// Sessions the target already holds keep their rows: an id cannot belong to two sessions.
const NEW_SESSIONS = "session_id NOT IN (SELECT id FROM main.sessions)";

/**
 * Copies every session of the Gyre SQLite database at `source` (messages, derived rows and
 * checkpoints, with their times) into `db`, as sessions of `project`, once: the file is
 * recorded in `imported_databases` and later calls return 0. The source is left untouched:
 * a snapshot of it (`VACUUM INTO`) is brought to the current schema and read instead.
 * Returns the number of sessions copied.
 */
export function importSqliteDatabase(db: Database.Database, source: string, project: string, now: number): number {
  if (wasImported(db, source)) return 0;
  const folder = mkdtempSync(join(tmpdir(), "gyre-import-"));
  const snapshot = join(folder, "sessions.db");
  try {
    const original = keepAlive(openDatabase(source, { readonly: true, fileMustExist: true }));
    try {
      keepAlive(original.prepare("VACUUM INTO ?")).run(snapshot);
    } finally {
      original.close();
    }
    const copy = keepAlive(openDatabase(snapshot));
    try {
      migrateSqlite(copy);
    } finally {
      copy.close();
    }
    keepAlive(db.prepare("ATTACH DATABASE ? AS legacy")).run(snapshot);
    try {
      return copyAll(db, source, project, now);
    } finally {
      db.exec("DETACH DATABASE legacy");
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function wasImported(db: Database.Database, source: string): boolean {
  return keepAlive(db.prepare("SELECT 1 FROM imported_databases WHERE path = ?")).get(source) !== undefined;
}

/** One IMMEDIATE transaction, so two processes importing the same file at once copy it once. */
function copyAll(db: Database.Database, source: string, project: string, now: number): number {
  const messages = keepAlive(
    db.prepare(
      `INSERT OR IGNORE INTO main.session_messages (${MESSAGE_COLUMNS}) ` +
        `SELECT ${MESSAGE_COLUMNS} FROM legacy.session_messages WHERE ${NEW_SESSIONS}`,
    ),
  );
  const checkpoints = keepAlive(
    db.prepare(
      `INSERT INTO main.checkpoints (${CHECKPOINT_COLUMNS}) ` +
        `SELECT ${CHECKPOINT_COLUMNS} FROM legacy.checkpoints WHERE ${NEW_SESSIONS} ORDER BY id`,
    ),
  );
  const sessions = keepAlive(
    db.prepare(
      `INSERT INTO main.sessions (${SESSION_COLUMNS}, project) ` +
        `SELECT ${SESSION_COLUMNS}, ? FROM legacy.sessions WHERE id NOT IN (SELECT id FROM main.sessions)`,
    ),
  );
  const record = keepAlive(
    db.prepare("INSERT INTO imported_databases (path, project, sessions, imported_at) VALUES (?, ?, ?, ?)"),
  );
  return db
    .transaction(() => {
      if (wasImported(db, source)) return 0;
      messages.run();
      checkpoints.run();
      const copied = sessions.run(project).changes;
      record.run(source, project, copied, now);
      return copied;
    })
    .immediate();
}
