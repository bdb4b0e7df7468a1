import type { SDKMessage } from "../protocol/index.js";
import { parseStored } from "./json.js";
import {
  LEGACY_RECORD_SESSIONS,
  type LegacyConversation,
  type LegacyResponse,
  legacyRecord,
} from "./legacy-records.js";
import type { PgClientLike } from "./postgres-driver.js";
import type { RecordData, RecordItem } from "./records.js";

/**
 * PostgreSQL migration 4's data step (`s`: the quoted schema): the server's records kept as
 * sessions (see legacy-records.ts) become rows of the new tables, and those sessions are
 * deleted. Frozen with the migration.
 */
export async function moveLegacyRecords(client: PgClientLike, s: string): Promise<void> {
  const sessions = await client.query<{ id: string; created_at: string }>(
    `SELECT id, created_at FROM ${s}.sessions WHERE ${LEGACY_RECORD_SESSIONS} ORDER BY id`,
  );
  const now = Date.now();
  for (const session of sessions.rows) {
    const rows = await client.query<{ data: string }>(
      `SELECT data FROM ${s}.session_messages WHERE session_id = $1 ORDER BY seq`,
      [session.id],
    );
    const where = `session ${session.id} (moving it to the server's tables)`;
    const record = legacyRecord(
      session.id,
      rows.rows.map((row) => parseStored<SDKMessage>(row.data, where)),
    );
    if (!record) continue;
    const times = [Number(session.created_at), now];
    if (record.kind === "response") await writeResponse(client, s, record, times);
    else await writeConversation(client, s, record, times);
    for (const table of ["session_messages", "messages", "parts", "checkpoints", "session_lock_owners"])
      await client.query(`DELETE FROM ${s}.${table} WHERE session_id = $1`, [session.id]);
    await client.query(`DELETE FROM ${s}.sessions WHERE id = $1`, [session.id]);
  }
}

async function writeResponse(
  client: PgClientLike,
  s: string,
  { record, inputItems, events }: LegacyResponse,
  [createdAt, updatedAt]: number[],
): Promise<void> {
  const { id, owner, status, runSessionId, data } = record;
  await client.query(
    `INSERT INTO ${s}.responses (id, owner, status, run_session_id, created_at, updated_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, owner, status, runSessionId, createdAt, updatedAt, JSON.stringify(data)],
  );
  await insertRows(
    client,
    `${s}.response_input_items (response_id, seq, data)`,
    id,
    inputItems.map((item, seq) => [seq, item]),
  );
  await insertRows(
    client,
    `${s}.response_events (response_id, seq, data)`,
    id,
    events.map((event) => [event.sequence_number, event]),
  );
}

async function writeConversation(
  client: PgClientLike,
  s: string,
  { record, items }: LegacyConversation,
  [createdAt, updatedAt]: number[],
): Promise<void> {
  await client.query(
    `INSERT INTO ${s}.conversations (id, owner, created_at, updated_at, data) VALUES ($1, $2, $3, $4, $5)`,
    [record.id, record.owner, createdAt, updatedAt, JSON.stringify(record.data)],
  );
  const rows = items.map((item, index): [number, RecordItem] => [index + 1, item]);
  await insertRows(client, `${s}.conversation_items (conversation_id, seq, item_id, data)`, record.id, rows, true);
}

/**
 * Rows of one owner (a response's or a conversation's id) in one statement: `rows` as their
 * `seq` and data, and with `itemIds` the data's own id too. The same `seq` twice keeps the first.
 */
async function insertRows(
  client: PgClientLike,
  into: string,
  owner: string,
  rows: Array<[number, RecordData]>,
  itemIds = false,
): Promise<void> {
  if (rows.length === 0) return;
  const seqs = rows.map(([seq]) => seq);
  const data = rows.map(([, each]) => JSON.stringify(each));
  const columns = itemIds ? "$2::int[], $3::text[], $4::text[]" : "$2::int[], $3::text[]";
  const values = itemIds ? [owner, seqs, rows.map(([, each]) => String(each.id)), data] : [owner, seqs, data];
  await client.query(`INSERT INTO ${into} SELECT $1, * FROM unnest(${columns}) ON CONFLICT DO NOTHING`, values);
}
