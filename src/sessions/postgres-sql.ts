/** Rows as `pg` returns them: `bigint` columns arrive as strings. */
export interface SessionRow {
  id: string;
  cwd: string;
  project: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  parent_id: string | null;
  parent_tool_use_id: string | null;
  forked_from_message: string | null;
  state: string;
}

const SESSION_COLUMNS =
  "id, cwd, title, created_at, updated_at, parent_id, forked_from_message, state, project, parent_tool_use_id";

/** `($1, $2), ($3, $4)` for `rows` rows of `columns` parameters each. */
export function valuesList(rows: number, columns: number): string {
  return Array.from(
    { length: rows },
    (_, row) => `(${Array.from({ length: columns }, (_, column) => `$${row * columns + column + 1}`).join(", ")})`,
  ).join(", ");
}

/** Every statement the PostgreSQL store runs, for the schema `s` (already quoted). */
export function postgresSql(s: string) {
  return {
    getSession: `SELECT ${SESSION_COLUMNS} FROM ${s}.sessions WHERE id = $1`,
    lockSession: `SELECT ${SESSION_COLUMNS} FROM ${s}.sessions WHERE id = $1 FOR UPDATE`,
    /** A listing by `where` (from `sessionFilterSql`), whose `limit` parameter is `$limit`. */
    listSessions: (where: string, limit: string) =>
      `SELECT ${SESSION_COLUMNS} FROM ${s}.sessions ${where} ORDER BY updated_at DESC, id DESC LIMIT ${limit}`,
    /** The session and the sessions of the subagents it ran, at any depth. */
    withSubagentSessions:
      `WITH RECURSIVE tree(id) AS (SELECT $1::text UNION SELECT c.id FROM ${s}.sessions AS c ` +
      `JOIN tree ON c.parent_id = tree.id WHERE c.parent_tool_use_id IS NOT NULL) SELECT id FROM tree`,
    insertSession: `INSERT INTO ${s}.sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
    updateState: `UPDATE ${s}.sessions SET updated_at = $1, state = $2 WHERE id = $3`,
    renameSession: `UPDATE ${s}.sessions SET title = $1, updated_at = $2 WHERE id = $3 RETURNING ${SESSION_COLUMNS}`,
    deleteSession: [
      `DELETE FROM ${s}.session_messages WHERE session_id = $1`,
      `DELETE FROM ${s}.messages WHERE session_id = $1`,
      `DELETE FROM ${s}.parts WHERE session_id = $1`,
      `DELETE FROM ${s}.checkpoints WHERE session_id = $1`,
      `DELETE FROM ${s}.sessions WHERE id = $1`,
    ],
    messageSeq: `SELECT seq FROM ${s}.session_messages WHERE session_id = $1 AND uuid = $2`,
    insertRaw: `INSERT INTO ${s}.session_messages (session_id, seq, uuid, type, data, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    rawMessages: `SELECT seq, data FROM ${s}.session_messages WHERE session_id = $1 AND seq <= $2 ORDER BY seq`,
    upsertMessages: (values: string) =>
      `INSERT INTO ${s}.messages (id, session_id, seq, data) VALUES ${values} ON CONFLICT (id) DO UPDATE SET data = excluded.data`,
    upsertParts: (values: string) =>
      `INSERT INTO ${s}.parts (id, message_id, session_id, seq, ord, type, data) VALUES ${values} ON CONFLICT (id) DO UPDATE SET data = excluded.data`,
    derivedMessages: `SELECT data FROM ${s}.messages WHERE session_id = $1 ORDER BY seq, id`,
    parts: `SELECT data FROM ${s}.parts WHERE session_id = $1 ORDER BY seq, ord`,
    insertCheckpoint: `INSERT INTO ${s}.checkpoints (session_id, message_uuid, message_seq, file_path, content_before, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    checkpointSeq: `SELECT MIN(message_seq) AS seq FROM ${s}.checkpoints WHERE session_id = $1 AND message_uuid = $2`,
    checkpoints: `SELECT message_uuid, file_path, content_before, created_at FROM ${s}.checkpoints WHERE session_id = $1 AND message_seq >= $2 ORDER BY message_seq, id`,
  };
}

export type PostgresSql = ReturnType<typeof postgresSql>;
