import type { Database } from "better-sqlite3";
import type { SDKMessage } from "../protocol/index.js";
import { parseStored } from "./json.js";
import {
  LEGACY_RECORD_SESSIONS,
  type LegacyConversation,
  type LegacyResponse,
  legacyRecord,
} from "./legacy-records.js";
import { keepAlive } from "./sqlite-keep-alive.js";

/**
 * SQLite migration 5's data step: the server's records kept as sessions (see legacy-records.ts)
 * become rows of the new tables, and those sessions are deleted. Frozen with the migration.
 */
export function moveLegacyRecords(db: Database, now: number): void {
  const sessions = keepAlive(
    db.prepare<[], { id: string; created_at: number }>(
      `SELECT id, created_at FROM sessions WHERE ${LEGACY_RECORD_SESSIONS} ORDER BY id`,
    ),
  ).all();
  if (sessions.length === 0) return;
  const messagesOf = keepAlive(
    db.prepare<[string], { data: string }>("SELECT data FROM session_messages WHERE session_id = ? ORDER BY seq"),
  );
  const write = writers(db, now);
  for (const session of sessions) {
    const messages = messagesOf
      .all(session.id)
      .map((row) => parseStored<SDKMessage>(row.data, `session ${session.id} (moving it to the server's tables)`));
    const record = legacyRecord(session.id, messages);
    if (!record) continue;
    if (record.kind === "response") write.response(record, session.created_at);
    else write.conversation(record, session.created_at);
    write.dropSession(session.id);
  }
}

function writers(db: Database, now: number) {
  const prepare = (sql: string) => keepAlive(db.prepare(sql));
  const response = prepare(
    "INSERT INTO responses (id, owner, status, run_session_id, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const inputItem = prepare("INSERT INTO response_input_items (response_id, seq, data) VALUES (?, ?, ?)");
  const event = prepare("INSERT OR IGNORE INTO response_events (response_id, seq, data) VALUES (?, ?, ?)");
  const conversation = prepare(
    "INSERT INTO conversations (id, owner, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?)",
  );
  const item = prepare("INSERT INTO conversation_items (conversation_id, seq, item_id, data) VALUES (?, ?, ?, ?)");
  const drop = [
    "DELETE FROM session_messages WHERE session_id = ?",
    "DELETE FROM checkpoints WHERE session_id = ?",
    "DELETE FROM session_locks WHERE session_id = ?",
    "DELETE FROM sessions WHERE id = ?",
  ].map(prepare);
  return {
    response({ record, inputItems, events }: LegacyResponse, createdAt: number): void {
      const { id, owner, status, runSessionId, data } = record;
      response.run(id, owner, status, runSessionId, createdAt, now, JSON.stringify(data));
      inputItems.forEach((each, seq) => inputItem.run(id, seq, JSON.stringify(each)));
      for (const each of events) event.run(id, each.sequence_number, JSON.stringify(each));
    },
    conversation({ record, items }: LegacyConversation, createdAt: number): void {
      conversation.run(record.id, record.owner, createdAt, now, JSON.stringify(record.data));
      items.forEach((each, seq) => item.run(record.id, seq + 1, each.id, JSON.stringify(each)));
    },
    dropSession(id: string): void {
      for (const statement of drop) statement.run(id);
    },
  };
}
