import { parseStored } from "./json.js";
import type { PgClientLike } from "./postgres-driver.js";
import {
  exists,
  type ConversationRecord,
  type ConversationRecords,
  type RecordEvent,
  type RecordItem,
  type ResponseRecord,
  type ResponseRecords,
  type ServerRecords,
} from "./records.js";

/** How the records reach the store's pool: a client for one query or for one transaction, and the store's clock. */
export interface PostgresRecordsHost {
  /** The quoted schema. */
  s: string;
  schema: string;
  now: () => number;
  /** Runs `work` on a pooled client, its failures as the store's `session_store_error`s. */
  with<T>(work: (client: PgClientLike) => Promise<T>): Promise<T>;
  /** The same, inside one transaction. */
  transaction<T>(work: (client: PgClientLike) => Promise<T>): Promise<T>;
}

/** The server's records in the PostgreSQL store's schema, shared by every instance on it. */
export class PostgresServerRecords implements ServerRecords {
  readonly responses: ResponseRecords;
  readonly conversations: ConversationRecords;

  constructor(host: PostgresRecordsHost) {
    this.responses = new PostgresResponses(host);
    this.conversations = new PostgresConversations(host);
  }
}

class PostgresResponses implements ResponseRecords {
  constructor(private readonly host: PostgresRecordsHost) {}

  async create(record: ResponseRecord, inputItems: readonly RecordItem[]): Promise<void> {
    const { s } = this.host;
    await this.host.transaction(async (client) => {
      const { id, owner, status, runSessionId, data } = record;
      const now = this.host.now();
      const inserted = await client.query(
        `INSERT INTO ${s}.responses (id, owner, status, run_session_id, created_at, updated_at, data) ` +
          "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        [id, owner, status, runSessionId, now, now, JSON.stringify(data)],
      );
      if (inserted.rowCount === 0) throw exists("Response", id);
      const seqs = inputItems.map((_, seq) => seq);
      await insertRows(client, `${s}.response_input_items (response_id, seq, data)`, id, seqs, inputItems);
    });
  }

  async update(record: ResponseRecord): Promise<boolean> {
    const { id, status, runSessionId, data } = record;
    const updated = await this.host.with((client) =>
      client.query(
        `UPDATE ${this.host.s}.responses SET status = $1, run_session_id = $2, updated_at = $3, data = $4 WHERE id = $5`,
        [status, runSessionId, this.host.now(), JSON.stringify(data), id],
      ),
    );
    return (updated.rowCount ?? 0) > 0;
  }

  async get(id: string): Promise<ResponseRecord | undefined> {
    const { rows } = await this.host.with((client) =>
      client.query<{ owner: string; status: string; run_session_id: string; data: string }>(
        `SELECT owner, status, run_session_id, data FROM ${this.host.s}.responses WHERE id = $1`,
        [id],
      ),
    );
    const row = rows[0];
    if (!row) return undefined;
    const { owner, status, run_session_id: runSessionId } = row;
    return { id, owner, status, runSessionId, data: parseStored(row.data, this.#where(id)) };
  }

  async inputItems(id: string): Promise<RecordItem[]> {
    const sql = `SELECT data FROM ${this.host.s}.response_input_items WHERE response_id = $1 ORDER BY seq`;
    return parseRows(await this.host.with((client) => client.query(sql, [id])), this.#where(id));
  }

  async appendEvents(id: string, events: readonly RecordEvent[]): Promise<boolean> {
    const { s } = this.host;
    return this.host.transaction(async (client) => {
      // Shares the row with other appends, and keeps a delete out until this one commits.
      const found = await client.query(`SELECT 1 FROM ${s}.responses WHERE id = $1 FOR SHARE`, [id]);
      if (found.rowCount === 0) return false;
      const seqs = events.map((event) => event.sequence_number);
      await insertRows(client, `${s}.response_events (response_id, seq, data)`, id, seqs, events);
      return true;
    });
  }

  async events(id: string, after = -1): Promise<RecordEvent[]> {
    const sql = `SELECT data FROM ${this.host.s}.response_events WHERE response_id = $1 AND seq > $2 ORDER BY seq`;
    return parseRows(await this.host.with((client) => client.query(sql, [id, after])), this.#where(id));
  }

  async delete(id: string): Promise<void> {
    const { s } = this.host;
    await this.host.transaction(async (client) => {
      await client.query(`DELETE FROM ${s}.responses WHERE id = $1`, [id]);
      await client.query(`DELETE FROM ${s}.response_input_items WHERE response_id = $1`, [id]);
      await client.query(`DELETE FROM ${s}.response_events WHERE response_id = $1`, [id]);
    });
  }

  #where(id: string): string {
    return `PostgreSQL schema ${this.host.schema} (response ${id})`;
  }
}

class PostgresConversations implements ConversationRecords {
  constructor(private readonly host: PostgresRecordsHost) {}

  async create(record: ConversationRecord, items: readonly RecordItem[]): Promise<void> {
    const { s } = this.host;
    await this.host.transaction(async (client) => {
      const now = this.host.now();
      const inserted = await client.query(
        `INSERT INTO ${s}.conversations (id, owner, created_at, updated_at, data) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [record.id, record.owner, now, now, JSON.stringify(record.data)],
      );
      if (inserted.rowCount === 0) throw exists("Conversation", record.id);
      await this.#insertItems(client, record.id, items, 0);
    });
  }

  async get(id: string): Promise<{ record: ConversationRecord; items: RecordItem[] } | undefined> {
    const { s } = this.host;
    // One transaction at REPEATABLE READ: the conversation and its items as of one moment.
    return this.host.transaction(async (client) => {
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const found = await client.query<{ owner: string; data: string }>(
        `SELECT owner, data FROM ${s}.conversations WHERE id = $1`,
        [id],
      );
      const row = found.rows[0];
      if (!row) return undefined;
      const where = `PostgreSQL schema ${this.host.schema} (conversation ${id})`;
      const items = await client.query(
        `SELECT data FROM ${s}.conversation_items WHERE conversation_id = $1 ORDER BY seq`,
        [id],
      );
      return {
        record: { id, owner: row.owner, data: parseStored(row.data, where) },
        items: parseRows<RecordItem>(items, where),
      };
    });
  }

  async addItems(id: string, items: readonly RecordItem[]): Promise<boolean> {
    return this.host.transaction(async (client) => {
      // The conversation's row lock orders concurrent writers, so each takes the next numbers.
      if (!(await this.#touch(client, id))) return false;
      const last = await client.query<{ seq: number }>(
        `SELECT COALESCE(MAX(seq), 0) AS seq FROM ${this.host.s}.conversation_items WHERE conversation_id = $1`,
        [id],
      );
      await this.#insertItems(client, id, items, last.rows[0]?.seq ?? 0);
      return true;
    });
  }

  async removeItem(id: string, itemId: string): Promise<boolean> {
    return this.host.transaction(async (client) => {
      if (!(await this.#touch(client, id))) return false;
      await client.query(`DELETE FROM ${this.host.s}.conversation_items WHERE conversation_id = $1 AND item_id = $2`, [
        id,
        itemId,
      ]);
      return true;
    });
  }

  async update(record: ConversationRecord): Promise<boolean> {
    const updated = await this.host.with((client) =>
      client.query(`UPDATE ${this.host.s}.conversations SET updated_at = $1, data = $2 WHERE id = $3`, [
        this.host.now(),
        JSON.stringify(record.data),
        record.id,
      ]),
    );
    return (updated.rowCount ?? 0) > 0;
  }

  async delete(id: string): Promise<void> {
    await this.host.transaction(async (client) => {
      await client.query(`DELETE FROM ${this.host.s}.conversations WHERE id = $1`, [id]);
      await client.query(`DELETE FROM ${this.host.s}.conversation_items WHERE conversation_id = $1`, [id]);
    });
  }

  /** Marks the conversation changed, taking its row lock; false when it is not stored. */
  async #touch(client: PgClientLike, id: string): Promise<boolean> {
    const touched = await client.query(`UPDATE ${this.host.s}.conversations SET updated_at = $1 WHERE id = $2`, [
      this.host.now(),
      id,
    ]);
    return (touched.rowCount ?? 0) > 0;
  }

  async #insertItems(client: PgClientLike, id: string, items: readonly RecordItem[], last: number): Promise<void> {
    const seqs = items.map((_, index) => last + index + 1);
    await insertRows(
      client,
      `${this.host.s}.conversation_items (conversation_id, seq, item_id, data)`,
      id,
      seqs,
      items,
      {
        itemIds: true,
      },
    );
  }
}

/**
 * One owner's rows (a response's or a conversation's) in one statement: each value with its
 * `seq`, and with `itemIds` its own id too. A `seq` that is stored already keeps its row.
 */
async function insertRows(
  client: PgClientLike,
  into: string,
  owner: string,
  seqs: readonly number[],
  values: readonly (RecordItem | RecordEvent)[],
  options: { itemIds?: boolean } = {},
): Promise<void> {
  if (values.length === 0) return;
  const data = values.map((value) => JSON.stringify(value));
  const params = options.itemIds ? [owner, seqs, values.map((value) => String(value.id)), data] : [owner, seqs, data];
  const arrays = options.itemIds ? "$2::int[], $3::text[], $4::text[]" : "$2::int[], $3::text[]";
  await client.query(`INSERT INTO ${into} SELECT $1, * FROM unnest(${arrays}) ON CONFLICT DO NOTHING`, params);
}

function parseRows<T>(result: { rows: Array<{ data: string }> }, where: string): T[] {
  return result.rows.map((row) => parseStored<T>(row.data, where));
}
