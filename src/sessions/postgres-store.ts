import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { applyMessage } from "./derive.js";
import { createIdGenerator, type IdGenerator } from "./ids.js";
import { parseStored } from "./json.js";
import type { StoreClockOptions } from "./memory-store.js";
import type { Part } from "./parts.js";
import { createPgPool, type PgClientLike, type PgPoolLike } from "./postgres-driver.js";
import { PostgresLocks } from "./postgres-lock.js";
import { migratePostgres, quoteIdentifier } from "./postgres-migrations.js";
import { PostgresServerRecords } from "./postgres-records.js";
import { type PostgresSql, postgresSql, type SessionRow, valuesList } from "./postgres-sql.js";
import type { ServerRecords } from "./records.js";
import { sessionFilterSql } from "./session-filter.js";
import {
  assembleMessages,
  decodeState,
  messageNotFound,
  forkInput,
  newSessionRecord,
  sessionRecordFromRow,
  sessionRowValues,
  type SessionRecord,
  sessionExists,
  sessionNotFound,
  toSessionInfo,
  withSessionId,
} from "./session-record.js";
import type { ForkOptions, ListSessionsFilter, SessionLock, SessionStore, UpToOptions } from "./store.js";
import type { CreateSessionInput, FileCheckpoint, MessageInfo, SessionInfo, StoredMessage } from "./types.js";

export interface PostgresSessionStoreOptions extends StoreClockOptions {
  /** e.g. `postgres://user@host:5432/db`; or pass `pool`. */
  connectionString?: string;
  /** An existing pool (a `pg` `Pool` fits); the store does not end it on `close()`. */
  pool?: PgPoolLike;
  /** Schema holding the tables, created if missing (default `public`). */
  schema?: string;
  /**
   * With `connectionString`: how long to wait for a connection, opening one or waiting for a
   * free one in the pool, before that operation fails (default: no limit). An address that
   * never answers then fails to open the store after this long, instead of hanging.
   */
  connectionTimeoutMs?: number;
}

/**
 * Opens a PostgreSQL session store and migrates its schema. Several processes or server
 * instances may share one database: appends to a session serialize on its row
 * (`SELECT ... FOR UPDATE`), locks are advisory locks. An unreachable or unusable database
 * is a `session_store_error`.
 */
export async function openPostgresSessionStore(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
  const schema = options.schema ?? "public";
  const ownsPool = options.pool === undefined;
  // pg is loaded only when a PostgreSQL store is opened: most runs use SQLite, and
  // loading pg costs tens of milliseconds of start-up. It is an optional peer dependency.
  const pool = options.pool ?? (await createPgPool(options.connectionString, options.connectionTimeoutMs));
  if (ownsPool) pool.on("error", () => {}); // idle clients that drop are replaced on next use
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client, schema);
    } finally {
      client.release();
    }
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => {});
    throw storeError(schema, error);
  }
  return new PostgresSessionStore(pool, ownsPool, schema, options);
}

function storeError(schema: string, error: unknown): GyreError {
  if (isGyreError(error)) return error;
  return new GyreError("session_store_error", `PostgreSQL session store (schema ${schema}): ${errorMessage(error)}`, {
    cause: error,
  });
}

/** Use {@link openPostgresSessionStore} to create one. */
export class PostgresSessionStore implements SessionStore {
  readonly schema: string;
  /** `gyre serve`'s responses and conversations, in tables of their own in this schema. */
  readonly records: ServerRecords;
  readonly #pool: PgPoolLike;
  readonly #ownsPool: boolean;
  readonly #sql: PostgresSql;
  readonly #now: () => number;
  readonly #newId: IdGenerator;
  readonly #locks: PostgresLocks;

  /** @internal */
  constructor(pool: PgPoolLike, ownsPool: boolean, schema: string, options: StoreClockOptions) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.schema = schema;
    this.#sql = postgresSql(quoteIdentifier(schema));
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? createIdGenerator({ now: this.#now });
    this.#locks = new PostgresLocks(pool, schema, quoteIdentifier(schema), this.#now);
    this.records = new PostgresServerRecords({
      s: quoteIdentifier(schema),
      schema,
      now: this.#now,
      with: (work) => this.#with(work),
      transaction: (work) => this.#transaction(work),
    });
  }

  async createSession(input: CreateSessionInput, messages: readonly SDKMessage[] = []): Promise<SessionInfo> {
    if (messages.length === 0) return this.#with(async (client) => toSessionInfo(await this.#create(client, input)));
    return this.#transaction(async (client) => {
      const { id } = await this.#create(client, input);
      for (const message of messages) if (message.type !== "stream_event") await this.#append(client, id, message);
      const row = (await client.query<SessionRow>(this.#sql.getSession, [id])).rows[0]!;
      return toSessionInfo(this.#decode(row));
    });
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    return this.#with(async (client) => {
      const row = (await client.query<SessionRow>(this.#sql.getSession, [id])).rows[0];
      return row ? toSessionInfo(this.#decode(row)) : undefined;
    });
  }

  async listSessions(filter: ListSessionsFilter = {}): Promise<SessionInfo[]> {
    return this.#with(async (client) => {
      const { where, params } = sessionFilterSql(filter, (n) => `$${n}`);
      const sql = this.#sql.listSessions(where, `$${params.length + 1}`);
      const { rows } = await client.query<SessionRow>(sql, [...params, filter.limit ?? null]);
      return rows.map((row) => toSessionInfo(this.#decode(row)));
    });
  }

  async latestSession(project: string): Promise<SessionInfo | undefined> {
    return (await this.listSessions({ project, limit: 1 }))[0];
  }

  async append(sessionId: string, message: SDKMessage): Promise<void> {
    if (message.type === "stream_event") return;
    await this.#transaction((client) => this.#append(client, sessionId, message));
  }

  async getSessionMessages(sessionId: string, options: UpToOptions = {}): Promise<SDKMessage[]> {
    return this.#with(async (client) => {
      await this.#require(client, sessionId);
      let last = 2_147_483_647;
      if (options.upTo !== undefined) {
        const found = await client.query<{ seq: number }>(this.#sql.messageSeq, [sessionId, options.upTo]);
        if (!found.rows[0]) throw messageNotFound(sessionId, options.upTo);
        last = found.rows[0].seq;
      }
      const { rows } = await client.query<{ seq: number; data: string }>(this.#sql.rawMessages, [sessionId, last]);
      return rows.map((row) => parseStored<SDKMessage>(row.data, `${this.#where(sessionId)}, message ${row.seq}`));
    });
  }

  async getMessages(sessionId: string): Promise<StoredMessage[]> {
    return this.#with(async (client) => {
      await this.#require(client, sessionId);
      const where = this.#where(sessionId);
      const messages = await client.query<{ data: string }>(this.#sql.derivedMessages, [sessionId]);
      const parts = await client.query<{ data: string }>(this.#sql.parts, [sessionId]);
      return assembleMessages(
        messages.rows.map((row) => parseStored<MessageInfo>(row.data, where)),
        parts.rows.map((row) => parseStored<Part>(row.data, where)),
      );
    });
  }

  async renameSession(id: string, title: string): Promise<SessionInfo> {
    return this.#with(async (client) => {
      const { rows } = await client.query<SessionRow>(this.#sql.renameSession, [title, this.#now(), id]);
      if (!rows[0]) throw sessionNotFound(id);
      return toSessionInfo(this.#decode(rows[0]));
    });
  }

  async deleteSession(id: string): Promise<void> {
    await this.#transaction(async (client) => {
      const tree = await client.query<{ id: string }>(this.#sql.withSubagentSessions, [id]);
      for (const { id: session } of tree.rows) {
        for (const sql of this.#sql.deleteSession) await client.query(sql, [session]);
      }
    });
  }

  async forkSession(id: string, options: ForkOptions = {}): Promise<SessionInfo> {
    const history = await this.getSessionMessages(id, options.upTo !== undefined ? { upTo: options.upTo } : {});
    return this.#transaction(async (client) => {
      const source = await this.#require(client, id);
      const fork = await this.#create(client, forkInput(source, options, history.at(-1)?.uuid));
      for (const message of history) await this.#append(client, fork.id, withSessionId(message, fork.id));
      return toSessionInfo(await this.#require(client, fork.id));
    });
  }

  async acquireLock(sessionId: string, owner?: string): Promise<SessionLock> {
    await this.#with((client) => this.#require(client, sessionId));
    try {
      return await this.#locks.acquire(sessionId, owner);
    } catch (error) {
      throw storeError(this.schema, error);
    }
  }

  async saveCheckpoint(
    sessionId: string,
    messageUuid: string,
    filePath: string,
    contentBefore: Buffer | null,
  ): Promise<void> {
    await this.#with(async (client) => {
      const record = await this.#require(client, sessionId);
      const found = await client.query<{ seq: number }>(this.#sql.messageSeq, [sessionId, messageUuid]);
      const seq = found.rows[0]?.seq ?? record.state.messageCount + 1;
      await client.query(this.#sql.insertCheckpoint, [
        sessionId,
        messageUuid,
        seq,
        filePath,
        contentBefore,
        this.#now(),
      ]);
    });
  }

  async getCheckpoints(sessionId: string, fromMessageUuid: string): Promise<FileCheckpoint[]> {
    return this.#with(async (client) => {
      await this.#require(client, sessionId);
      const message = await client.query<{ seq: number }>(this.#sql.messageSeq, [sessionId, fromMessageUuid]);
      const own = await client.query<{ seq: number | null }>(this.#sql.checkpointSeq, [sessionId, fromMessageUuid]);
      const from = message.rows[0]?.seq ?? own.rows[0]?.seq ?? null;
      if (from === null) throw messageNotFound(sessionId, fromMessageUuid);
      const { rows } = await client.query<{
        message_uuid: string;
        file_path: string;
        content_before: Buffer | null;
        created_at: string;
      }>(this.#sql.checkpoints, [sessionId, from]);
      return rows.map((row) => ({
        messageUuid: row.message_uuid,
        filePath: row.file_path,
        contentBefore: row.content_before,
        createdAt: Number(row.created_at),
      }));
    });
  }

  async close(): Promise<void> {
    await this.#locks.releaseAll();
    if (this.#ownsPool && !this.#pool.ended) await this.#pool.end();
  }

  async #create(client: PgClientLike, input: CreateSessionInput): Promise<SessionRecord> {
    const record = newSessionRecord(input, this.#now());
    const inserted = await client.query(this.#sql.insertSession, sessionRowValues(record));
    if (inserted.rowCount === 0) throw sessionExists(record.id);
    return record;
  }

  /** Runs inside a transaction; the session row lock orders concurrent appends. */
  async #append(client: PgClientLike, sessionId: string, message: SDKMessage): Promise<void> {
    const locked = (await client.query<SessionRow>(this.#sql.lockSession, [sessionId])).rows[0];
    if (!locked) throw sessionNotFound(sessionId);
    const record = this.#decode(locked);
    const now = this.#now();
    const { state, messages, parts } = applyMessage(record.state, message, {
      sessionId,
      now,
      newId: this.#newId,
    });
    const seq = state.messageCount;
    const raw = [sessionId, seq, message.uuid, message.type, JSON.stringify(message), now];
    if ((await client.query(this.#sql.insertRaw, raw)).rowCount === 0) return; // already stored
    if (messages.length > 0) {
      const rows = messages.map((row) => [row.id, sessionId, seq, JSON.stringify(row)]);
      await client.query(this.#sql.upsertMessages(valuesList(rows.length, 4)), rows.flat());
    }
    if (parts.length > 0) {
      const rows = parts.map((part, ord) => [
        part.id,
        part.messageId,
        sessionId,
        seq,
        ord,
        part.type,
        JSON.stringify(part),
      ]);
      await client.query(this.#sql.upsertParts(valuesList(rows.length, 7)), rows.flat());
    }
    await client.query(this.#sql.updateState, [now, JSON.stringify(state), sessionId]);
  }

  async #require(client: PgClientLike, sessionId: string): Promise<SessionRecord> {
    const row = (await client.query<SessionRow>(this.#sql.getSession, [sessionId])).rows[0];
    if (!row) throw sessionNotFound(sessionId);
    return this.#decode(row);
  }

  #decode(row: SessionRow): SessionRecord {
    return sessionRecordFromRow(row, decodeState(row.state, this.#where(row.id)));
  }

  #where(sessionId: string): string {
    return `PostgreSQL schema ${this.schema} (session ${sessionId})`;
  }

  async #with<T>(work: (client: PgClientLike) => Promise<T>): Promise<T> {
    let client: PgClientLike;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw storeError(this.schema, error);
    }
    try {
      return await work(client);
    } catch (error) {
      throw storeError(this.schema, error);
    } finally {
      client.release();
    }
  }

  async #transaction<T>(work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#with(async (client) => {
      await client.query("BEGIN");
      try {
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }
}
