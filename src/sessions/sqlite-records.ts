import type Database from "better-sqlite3";
import type { Statement } from "better-sqlite3";
import { parseStored } from "./json.js";
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
import { keepAlive } from "./sqlite-keep-alive.js";

/** How the records reach the store's database: its connection, clock and error mapping. */
export interface SqliteRecordsHost {
  db: Database.Database;
  path: string;
  now: () => number;
  /** Runs `work`, its failures as the store's `session_store_error`s. */
  run<T>(work: () => T): T;
}

interface RecordRow {
  id: string;
  owner: string;
  status: string;
  run_session_id: string;
  data: string;
}

const SQL = {
  insertResponse:
    "INSERT OR IGNORE INTO responses (id, owner, status, run_session_id, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
  updateResponse: "UPDATE responses SET status = ?, run_session_id = ?, updated_at = ?, data = ? WHERE id = ?",
  getResponse: "SELECT id, owner, status, run_session_id, data FROM responses WHERE id = ?",
  responseExists: "SELECT 1 FROM responses WHERE id = ?",
  insertInputItem: "INSERT INTO response_input_items (response_id, seq, data) VALUES (?, ?, ?)",
  inputItems: "SELECT data FROM response_input_items WHERE response_id = ? ORDER BY seq",
  insertEvent: "INSERT OR IGNORE INTO response_events (response_id, seq, data) VALUES (?, ?, ?)",
  events: "SELECT data FROM response_events WHERE response_id = ? AND seq > ? ORDER BY seq",
  deleteResponse: [
    "DELETE FROM response_input_items WHERE response_id = ?",
    "DELETE FROM response_events WHERE response_id = ?",
    "DELETE FROM responses WHERE id = ?",
  ],
  insertConversation:
    "INSERT OR IGNORE INTO conversations (id, owner, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?)",
  updateConversation: "UPDATE conversations SET updated_at = ?, data = ? WHERE id = ?",
  touchConversation: "UPDATE conversations SET updated_at = ? WHERE id = ?",
  getConversation: "SELECT id, owner, data FROM conversations WHERE id = ?",
  lastItem: "SELECT COALESCE(MAX(seq), 0) AS seq FROM conversation_items WHERE conversation_id = ?",
  insertItem: "INSERT INTO conversation_items (conversation_id, seq, item_id, data) VALUES (?, ?, ?, ?)",
  items: "SELECT data FROM conversation_items WHERE conversation_id = ? ORDER BY seq",
  removeItem: "DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?",
  deleteConversation: [
    "DELETE FROM conversation_items WHERE conversation_id = ?",
    "DELETE FROM conversations WHERE id = ?",
  ],
} as const;

/** Runs `work` in one transaction (IMMEDIATE unless told), its failures as the store's errors. */
type Transaction = <T>(work: () => T, mode?: "immediate" | "deferred") => T;

type Statements = { [K in keyof typeof SQL]: (typeof SQL)[K] extends string ? Statement : Statement[] };

/**
 * The server's records in the SQLite store's database. Their statements are prepared on first
 * use: `gyre run`, which never reads a response, does not pay for them.
 */
export class SqliteServerRecords implements ServerRecords {
  readonly responses: ResponseRecords;
  readonly conversations: ConversationRecords;

  constructor(host: SqliteRecordsHost) {
    let prepared: Statements | undefined;
    const sql = (): Statements => (prepared ??= prepare(host.db));
    // One transaction function for all their writes: better-sqlite3 builds four closures per
    // db.transaction() call, which cost more than a short transaction's own statements.
    const inTransaction = host.db.transaction((work: () => unknown) => work());
    const transaction = <T>(work: () => T, mode: "immediate" | "deferred" = "immediate"): T =>
      host.run(() => inTransaction[mode](work) as T);
    this.responses = new SqliteResponses(host, sql, transaction);
    this.conversations = new SqliteConversations(host, sql, transaction);
  }
}

function prepare(db: Database.Database): Statements {
  const statements: Record<string, Statement | Statement[]> = {};
  // Kept alive, as every statement of the store, for the reason in sqlite-keep-alive.ts.
  for (const [name, sql] of Object.entries(SQL))
    statements[name] =
      typeof sql === "string" ? keepAlive(db.prepare(sql)) : sql.map((each) => keepAlive(db.prepare(each)));
  return statements as Statements;
}

class SqliteResponses implements ResponseRecords {
  constructor(
    private readonly host: SqliteRecordsHost,
    private readonly sql: () => Statements,
    private readonly transaction: Transaction,
  ) {}

  async create(record: ResponseRecord, inputItems: readonly RecordItem[]): Promise<void> {
    this.#transaction(() => {
      const { id, owner, status, runSessionId, data } = record;
      const now = this.host.now();
      const values = [id, owner, status, runSessionId, now, now, JSON.stringify(data)];
      if (this.sql().insertResponse.run(...values).changes === 0) throw exists("Response", id);
      inputItems.forEach((item, seq) => this.sql().insertInputItem.run(id, seq, JSON.stringify(item)));
    });
  }

  async update(record: ResponseRecord): Promise<boolean> {
    const { id, status, runSessionId, data } = record;
    const values = [status, runSessionId, this.host.now(), JSON.stringify(data), id];
    return this.host.run(() => this.sql().updateResponse.run(...values).changes > 0);
  }

  async get(id: string): Promise<ResponseRecord | undefined> {
    return this.host.run(() => {
      const row = this.sql().getResponse.get(id) as RecordRow | undefined;
      if (!row) return undefined;
      const { owner, status, run_session_id: runSessionId } = row;
      return { id, owner, status, runSessionId, data: parseStored(row.data, this.#where(id)) };
    });
  }

  async inputItems(id: string): Promise<RecordItem[]> {
    return this.host.run(() => parseRows<RecordItem>(this.sql().inputItems.all(id), this.#where(id)));
  }

  async appendEvents(id: string, events: readonly RecordEvent[]): Promise<boolean> {
    return this.#transaction(() => {
      if (!this.sql().responseExists.get(id)) return false;
      for (const event of events) this.sql().insertEvent.run(id, event.sequence_number, JSON.stringify(event));
      return true;
    });
  }

  async events(id: string, after = -1): Promise<RecordEvent[]> {
    return this.host.run(() => parseRows<RecordEvent>(this.sql().events.all(id, after), this.#where(id)));
  }

  async delete(id: string): Promise<void> {
    this.#transaction(() => {
      for (const statement of this.sql().deleteResponse) statement.run(id);
    });
  }

  #transaction<T>(work: () => T): T {
    return this.transaction(work);
  }

  #where(id: string): string {
    return `${this.host.path} (response ${id})`;
  }
}

class SqliteConversations implements ConversationRecords {
  constructor(
    private readonly host: SqliteRecordsHost,
    private readonly sql: () => Statements,
    private readonly transaction: Transaction,
  ) {}

  async create(record: ConversationRecord, items: readonly RecordItem[]): Promise<void> {
    this.#transaction(() => {
      const now = this.host.now();
      const values = [record.id, record.owner, now, now, JSON.stringify(record.data)];
      if (this.sql().insertConversation.run(...values).changes === 0) throw exists("Conversation", record.id);
      this.#insertItems(record.id, items, 0);
    });
  }

  async get(id: string): Promise<{ record: ConversationRecord; items: RecordItem[] } | undefined> {
    // One read transaction: the conversation and its items as of one moment.
    return this.#transaction(() => {
      const row = this.sql().getConversation.get(id) as { owner: string; data: string } | undefined;
      if (!row) return undefined;
      const where = `${this.host.path} (conversation ${id})`;
      const items = parseRows<RecordItem>(this.sql().items.all(id), where);
      return { record: { id, owner: row.owner, data: parseStored(row.data, where) }, items };
    }, "deferred");
  }

  async addItems(id: string, items: readonly RecordItem[]): Promise<boolean> {
    return this.#transaction(() => {
      if (!this.#touch(id)) return false;
      this.#insertItems(id, items, (this.sql().lastItem.get(id) as { seq: number }).seq);
      return true;
    });
  }

  async removeItem(id: string, itemId: string): Promise<boolean> {
    return this.#transaction(() => {
      this.sql().removeItem.run(id, itemId);
      return this.#touch(id);
    });
  }

  async update(record: ConversationRecord): Promise<boolean> {
    const values = [this.host.now(), JSON.stringify(record.data), record.id];
    return this.host.run(() => this.sql().updateConversation.run(...values).changes > 0);
  }

  async delete(id: string): Promise<void> {
    this.#transaction(() => {
      for (const statement of this.sql().deleteConversation) statement.run(id);
    });
  }

  #insertItems(id: string, items: readonly RecordItem[], last: number): void {
    items.forEach((item, index) => this.sql().insertItem.run(id, last + index + 1, item.id, JSON.stringify(item)));
  }

  /** Marks the conversation changed; false when it is not stored. */
  #touch(id: string): boolean {
    return this.sql().touchConversation.run(this.host.now(), id).changes > 0;
  }

  #transaction<T>(work: () => T, mode: "immediate" | "deferred" = "immediate"): T {
    return this.transaction(work, mode);
  }
}

function parseRows<T>(rows: unknown[], where: string): T[] {
  return rows.map((row) => parseStored<T>((row as { data: string }).data, where));
}
