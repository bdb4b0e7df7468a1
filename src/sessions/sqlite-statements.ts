import type { Database, Statement } from "better-sqlite3";

export interface SessionRow {
  id: string;
  cwd: string;
  project: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  parent_id: string | null;
  parent_tool_use_id: string | null;
  forked_from_message: string | null;
  state: string;
}

export interface LockRow {
  token: string;
  owner: string;
  pid: number;
  host: string;
  heartbeat_at: number;
}

interface CheckpointRow {
  message_uuid: string;
  file_path: string;
  content_before: Buffer | null;
  created_at: number;
}

/** What one append derived: new message rows and new or changed parts. */
export interface DerivedRow {
  seq: number;
  derived_messages: string | null;
  derived_parts: string | null;
}

const SESSION_COLUMNS =
  "id, cwd, title, created_at, updated_at, parent_id, forked_from_message, state, project, parent_tool_use_id";

/** Every statement the SQLite store runs, prepared once when the store opens. */
export interface Statements {
  getSession: Statement<[string], SessionRow>;
  /** Only the state column, plucked: all an append needs from the session row. */
  sessionState: Statement<[string], string>;
  /** The session and the sessions of the subagents it ran, at any depth. */
  withSubagentSessions: Statement<[string], string>;
  insertSession: Statement<unknown[]>;
  updateState: Statement<unknown[]>;
  renameSession: Statement<unknown[]>;
  deleteSession: Statement<[string]>[];
  messageSeq: Statement<[string, string], { seq: number }>;
  /**
   * The raw message with the reducer's output for it (JSON arrays, null when empty);
   * changes nothing (0 changes) when the session already holds the uuid.
   */
  insertRaw: Statement<unknown[]>;
  rawMessages: Statement<[string, number], { seq: number; data: string }>;
  derivedRows: Statement<[string], DerivedRow>;
  insertCheckpoint: Statement<unknown[]>;
  checkpointSeq: Statement<[string, string], { seq: number | null }>;
  checkpoints: Statement<[string, number], CheckpointRow>;
  getLock: Statement<[string], LockRow>;
  putLock: Statement<unknown[]>;
  heartbeat: Statement<unknown[]>;
  deleteLock: Statement<unknown[]>;
}

/** A session listing by `where` (from `sessionFilterSql`); its last parameter is the limit (-1: none). */
export function listSessionsSql(where: string): string {
  return `SELECT ${SESSION_COLUMNS} FROM sessions ${where} ORDER BY updated_at DESC, id DESC LIMIT ?`;
}

export function prepareStatements(db: Database): Statements {
  return {
    getSession: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`),
    sessionState: db.prepare<[string], string>("SELECT state FROM sessions WHERE id = ?").pluck(),
    withSubagentSessions: db
      .prepare<[string], string>(
        "WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT s.id FROM sessions AS s JOIN tree ON s.parent_id = tree.id " +
          "WHERE s.parent_tool_use_id IS NOT NULL) SELECT id FROM tree",
      )
      .pluck(),
    insertSession: db.prepare(
      `INSERT OR IGNORE INTO sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateState: db.prepare("UPDATE sessions SET updated_at = ?, state = ? WHERE id = ?"),
    renameSession: db.prepare("UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?"),
    deleteSession: [
      "DELETE FROM session_messages WHERE session_id = ?",
      "DELETE FROM checkpoints WHERE session_id = ?",
      "DELETE FROM session_locks WHERE session_id = ?",
      "DELETE FROM sessions WHERE id = ?",
    ].map((sql) => db.prepare<[string]>(sql)),
    messageSeq: db.prepare<[string, string], { seq: number }>(
      "SELECT seq FROM session_messages WHERE session_id = ? AND uuid = ?",
    ),
    insertRaw: db.prepare(
      "INSERT INTO session_messages (session_id, seq, uuid, type, data, created_at, derived_messages, derived_parts) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (session_id, uuid) DO NOTHING",
    ),
    rawMessages: db.prepare<[string, number], { seq: number; data: string }>(
      "SELECT seq, data FROM session_messages WHERE session_id = ? AND seq <= ? ORDER BY seq",
    ),
    derivedRows: db.prepare<[string], DerivedRow>(
      "SELECT seq, derived_messages, derived_parts FROM session_messages " +
        "WHERE session_id = ? AND (derived_messages IS NOT NULL OR derived_parts IS NOT NULL) ORDER BY seq",
    ),
    insertCheckpoint: db.prepare(
      "INSERT OR IGNORE INTO checkpoints (session_id, message_uuid, message_seq, file_path, content_before, created_at) " +
        "VALUES (?, ?, ?, ?, ?, ?)",
    ),
    checkpointSeq: db.prepare<[string, string], { seq: number | null }>(
      "SELECT MIN(message_seq) AS seq FROM checkpoints WHERE session_id = ? AND message_uuid = ?",
    ),
    checkpoints: db.prepare<[string, number], CheckpointRow>(
      "SELECT message_uuid, file_path, content_before, created_at FROM checkpoints " +
        "WHERE session_id = ? AND message_seq >= ? ORDER BY message_seq, id",
    ),
    getLock: db.prepare<[string], LockRow>(
      "SELECT token, owner, pid, host, heartbeat_at FROM session_locks WHERE session_id = ?",
    ),
    putLock: db.prepare(
      "INSERT OR REPLACE INTO session_locks (session_id, token, owner, pid, host, acquired_at, heartbeat_at) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    heartbeat: db.prepare("UPDATE session_locks SET heartbeat_at = ? WHERE session_id = ? AND token = ?"),
    deleteLock: db.prepare("DELETE FROM session_locks WHERE session_id = ? AND token = ?"),
  };
}
