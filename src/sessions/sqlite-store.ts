import { mkdirSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import type { Statement } from "better-sqlite3";
import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { defaultSqlitePath } from "./default-location.js";
import { applyMessage } from "./derive.js";
import type { DeriveState } from "./derive-state.js";
import { createIdGenerator, type IdGenerator } from "./ids.js";
import { parseStored } from "./json.js";
import type { StoreClockOptions } from "./memory-store.js";
import type { Part } from "./parts.js";
import {
  decodeState,
  forkInput,
  messageNotFound,
  newSessionRecord,
  sessionRecordFromRow,
  sessionRowValues,
  replayDerived,
  type SessionRecord,
  sessionExists,
  sessionNotFound,
  toSessionInfo,
  withSessionId,
} from "./session-record.js";
import { importSqliteDatabase } from "./sqlite-import.js";
import { checkpointInBackground, type BackgroundCheckpoints } from "./sqlite-checkpoints.js";
import { openDatabase } from "./sqlite-driver.js";
import { SqliteLocks } from "./sqlite-lock.js";
import { keepAlive } from "./sqlite-keep-alive.js";
import { migrateSqlite } from "./sqlite-migrations.js";
import { SqliteServerRecords } from "./sqlite-records.js";
import type { ServerRecords } from "./records.js";
import { listSessionsSql, prepareStatements, type SessionRow, type Statements } from "./sqlite-statements.js";
import { sessionFilterSql } from "./session-filter.js";
import type { ForkOptions, ListSessionsFilter, SessionLock, SessionStore, UpToOptions } from "./store.js";
import type { CreateSessionInput, FileCheckpoint, MessageInfo, SessionInfo, StoredMessage } from "./types.js";

export interface SqliteSessionStoreOptions extends StoreClockOptions {
  /** The database file (default {@link defaultSqlitePath}: the user's, shared by all projects). */
  path?: string;
  /** A lock whose holder has not sent a heartbeat for this long is taken over (default 60 s). */
  lockTtlMs?: number;
  /**
   * `normal` (default): in WAL mode a commit is durable against a crash of the process
   * (kill -9 included) but the last commits before a power loss or OS crash may be lost;
   * the database stays consistent either way. `full` syncs every commit to disk, so not
   * even a power cut loses an appended message, at several times the cost per append.
   */
  synchronous?: "full" | "normal";
  /**
   * `inline` (default): SQLite copies its write-ahead log into the database file in whichever
   * commit fills it, a stall of milliseconds for that caller. `background`: a worker thread
   * does it on a timer, so no commit waits for it (`gyre serve`, where every stream in
   * flight would wait). Ignored for `:memory:`.
   */
  checkpoints?: "inline" | "background";
}

/**
 * Opens (creating if needed) a SQLite session store in WAL mode and migrates its schema.
 * A file that is not a readable Gyre database is a `session_store_error` naming the file.
 */
export function openSqliteSessionStore(options: SqliteSessionStoreOptions = {}): SqliteSessionStore {
  const path = options.path ?? defaultSqlitePath();
  let db: Database.Database | undefined;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    // Kept alive, with every statement prepared on it, for the reason in sqlite-keep-alive.ts;
    // pragmas go through exec, which makes no statement object (db.pragma() would).
    db = keepAlive(openDatabase(path));
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.exec("PRAGMA busy_timeout = 10000");
    migrateSqlite(db);
    const checkpoints =
      options.checkpoints === "background" && path !== ":memory:" ? checkpointInBackground(db, path) : undefined;
    return new SqliteSessionStore(db, path, options, checkpoints);
  } catch (error) {
    db?.close();
    throw storeError(path, error);
  }
}

function storeError(path: string, error: unknown): GyreError {
  if (isGyreError(error) && error.code !== "session_store_error") return error;
  return new GyreError("session_store_error", `Session database ${path}: ${errorMessage(error)}`, {
    cause: error,
  });
}

/** The embedded default store. Use {@link openSqliteSessionStore} to create one. */
export class SqliteSessionStore implements SessionStore {
  readonly path: string;
  /** `gyre serve`'s responses and conversations, in tables of their own in this database. */
  readonly records: ServerRecords;
  readonly #db: Database.Database;
  readonly #sql: Statements;
  readonly #now: () => number;
  readonly #newId: IdGenerator;
  readonly #locks: SqliteLocks;
  /** Made once: building a better-sqlite3 transaction function per append costs more than the insert. */
  readonly #appendTransaction: Database.Transaction<(sessionId: string, message: SDKMessage) => void>;
  readonly #createWithTransaction: Database.Transaction<
    (input: CreateSessionInput, messages: readonly SDKMessage[]) => SessionInfo
  >;
  /**
   * The last decoded reducer state per session with the exact text it came from: an append
   * reuses it when the row still holds that text (any other writer changes the text), so
   * the hot path skips parsing and validating the state.
   */
  readonly #states = new Map<string, { text: string; state: DeriveState }>();
  /** Sessions kept in #states: a long-lived process (gyre serve) writes to ever new ones. */
  static readonly #KEPT_STATES = 256;
  /**
   * The decoded states of the sessions whose lock this store holds, apart from #states and
   * until the lock is released: their runs are in this process and append again. In the
   * bounded cache alone, more runs in flight than it holds sent their states round it, and
   * every append decoded its state again (the serve bench's 200 streams in flight: 0.09 ms of
   * zod per response).
   */
  readonly #lockedStates = new Map<string, { text: string; state: DeriveState }>();
  readonly #listStatements = new Map<string, Statement<unknown[], SessionRow>>();
  readonly #checkpoints: BackgroundCheckpoints | undefined;

  /** @internal */
  constructor(
    db: Database.Database,
    path: string,
    options: SqliteSessionStoreOptions,
    checkpoints?: BackgroundCheckpoints,
  ) {
    this.#checkpoints = checkpoints;
    const statements = keepAlive(prepareStatements(db));
    this.#db = db;
    this.path = path;
    this.#sql = statements;
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? createIdGenerator({ now: this.#now });
    this.#locks = new SqliteLocks(db, statements, this.#now, options.lockTtlMs, (sessionId) =>
      this.#lockedStates.delete(sessionId),
    );
    this.records = new SqliteServerRecords({ db, path, now: this.#now, run: (work) => this.#run(work) });
    this.#appendTransaction = db.transaction((sessionId: string, message: SDKMessage) =>
      this.#append(sessionId, message),
    );
    this.#createWithTransaction = db.transaction((input: CreateSessionInput, messages: readonly SDKMessage[]) => {
      // The row as written, built here rather than read back.
      let record = this.#create(input);
      for (const message of messages) {
        if (message.type === "stream_event") continue;
        const appended = this.#append(record.id, message);
        if (appended) record = { ...record, state: appended.state, updatedAt: appended.now };
      }
      return toSessionInfo(record);
    });
  }

  async createSession(input: CreateSessionInput, messages: readonly SDKMessage[] = []): Promise<SessionInfo> {
    if (messages.length === 0) return this.#run(() => toSessionInfo(this.#create(input)));
    return this.#run(() => this.#createWithTransaction.immediate(input, messages));
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    return this.#run(() => {
      const row = this.#sql.getSession.get(id);
      return row ? toSessionInfo(this.#decode(row)) : undefined;
    });
  }

  async listSessions(filter: ListSessionsFilter = {}): Promise<SessionInfo[]> {
    return this.#run(() => {
      const { where, params } = sessionFilterSql(filter, () => "?");
      const rows = this.#listStatement(where).all(...params, filter.limit ?? -1);
      return rows.map((row) => toSessionInfo(this.#decode(row)));
    });
  }

  async latestSession(project: string): Promise<SessionInfo | undefined> {
    return (await this.listSessions({ project, limit: 1 }))[0];
  }

  async append(sessionId: string, message: SDKMessage): Promise<void> {
    if (message.type === "stream_event") return;
    this.#run(() => this.#appendTransaction.immediate(sessionId, message));
  }

  async getSessionMessages(sessionId: string, options: UpToOptions = {}): Promise<SDKMessage[]> {
    return this.#run(() => {
      this.#require(sessionId);
      let last = Number.MAX_SAFE_INTEGER;
      if (options.upTo !== undefined) {
        const found = this.#sql.messageSeq.get(sessionId, options.upTo);
        if (!found) throw messageNotFound(sessionId, options.upTo);
        last = found.seq;
      }
      return this.#sql.rawMessages
        .all(sessionId, last)
        .map((row) => parseStored<SDKMessage>(row.data, `${this.path} (session ${sessionId}, message ${row.seq})`));
    });
  }

  async getMessages(sessionId: string): Promise<StoredMessage[]> {
    return this.#run(() => {
      this.#require(sessionId);
      return replayDerived(
        this.#sql.derivedRows.all(sessionId).map((row) => {
          const where = `${this.path} (session ${sessionId}, message ${row.seq})`;
          return {
            messages: row.derived_messages === null ? [] : parseStored<MessageInfo[]>(row.derived_messages, where),
            parts: row.derived_parts === null ? [] : parseStored<Part[]>(row.derived_parts, where),
          };
        }),
      );
    });
  }

  async renameSession(id: string, title: string): Promise<SessionInfo> {
    return this.#run(() => {
      if (this.#sql.renameSession.run(title, this.#now(), id).changes === 0) throw sessionNotFound(id);
      return toSessionInfo(this.#require(id));
    });
  }

  async deleteSession(id: string): Promise<void> {
    this.#run(() =>
      this.#db
        .transaction(() => {
          for (const session of this.#sql.withSubagentSessions.all(id)) {
            for (const statement of this.#sql.deleteSession) statement.run(session);
            this.#states.delete(session);
            this.#lockedStates.delete(session);
          }
        })
        .immediate(),
    );
  }

  async forkSession(id: string, options: ForkOptions = {}): Promise<SessionInfo> {
    const history = await this.getSessionMessages(id, {
      ...(options.upTo !== undefined ? { upTo: options.upTo } : {}),
    });
    return this.#run(() =>
      this.#db
        .transaction(() => {
          const fork = this.#create(forkInput(this.#require(id), options, history.at(-1)?.uuid));
          for (const message of history) this.#append(fork.id, withSessionId(message, fork.id));
          return toSessionInfo(this.#require(fork.id));
        })
        .immediate(),
    );
  }

  async acquireLock(sessionId: string, owner?: string): Promise<SessionLock> {
    return this.#run(() => {
      this.#require(sessionId);
      return this.#locks.acquire(sessionId, owner);
    });
  }

  async saveCheckpoint(
    sessionId: string,
    messageUuid: string,
    filePath: string,
    contentBefore: Buffer | null,
  ): Promise<void> {
    this.#run(() => {
      const record = this.#require(sessionId);
      const seq = this.#sql.messageSeq.get(sessionId, messageUuid)?.seq ?? record.state.messageCount + 1;
      this.#sql.insertCheckpoint.run(sessionId, messageUuid, seq, filePath, contentBefore, this.#now());
    });
  }

  async getCheckpoints(sessionId: string, fromMessageUuid: string): Promise<FileCheckpoint[]> {
    return this.#run(() => {
      this.#require(sessionId);
      const from =
        this.#sql.messageSeq.get(sessionId, fromMessageUuid)?.seq ??
        this.#sql.checkpointSeq.get(sessionId, fromMessageUuid)?.seq ??
        undefined;
      if (from === undefined || from === null) throw messageNotFound(sessionId, fromMessageUuid);
      return this.#sql.checkpoints.all(sessionId, from).map((row) => ({
        messageUuid: row.message_uuid,
        filePath: row.file_path,
        contentBefore: row.content_before,
        createdAt: row.created_at,
      }));
    });
  }

  /**
   * Copies the sessions of another Gyre SQLite database file (such as the per-project
   * `<project>/.gyre/sessions.db` of earlier versions) into this store as sessions of
   * `project`, once per file: later calls return 0. The file itself is not changed.
   * Returns the number of sessions copied.
   */
  async importDatabase(path: string, project: string): Promise<number> {
    try {
      const source = realpathSync(path);
      if (this.path !== ":memory:" && source === realpathSync(this.path)) return 0;
      return importSqliteDatabase(this.#db, source, project, this.#now());
    } catch (error) {
      throw new GyreError(
        "session_store_error",
        `Session database ${path} could not be imported into ${this.path}: ${errorMessage(error)} ` +
          "(move the file away to go on without its sessions)",
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    this.#locks.releaseAll();
    await this.#checkpoints?.stop();
    if (this.#db.open) this.#db.close();
  }

  /** Listings differ only in their filter: one prepared statement per filter shape, made on first use. */
  #listStatement(where: string): Statement<unknown[], SessionRow> {
    let statement = this.#listStatements.get(where);
    if (!statement) {
      statement = keepAlive(this.#db.prepare<unknown[], SessionRow>(listSessionsSql(where)));
      this.#listStatements.set(where, statement);
    }
    return statement;
  }

  #create(input: CreateSessionInput): SessionRecord {
    const record = newSessionRecord(input, this.#now());
    const text = JSON.stringify(record.state);
    const inserted = this.#sql.insertSession.run(...sessionRowValues(record, text));
    if (inserted.changes === 0) throw sessionExists(record.id);
    // Its first append then skips decoding the state (a subagent's session is appended to at once).
    this.#keepState(record.id, { text, state: record.state });
    return record;
  }

  /**
   * Runs inside a transaction. The raw message, the reducer's output for it and the new
   * session state commit together in two row writes; the insert doubles as the check for a
   * uuid the session already holds (then nothing changes and the state stays as it was).
   */
  #append(sessionId: string, message: SDKMessage): { state: DeriveState; now: number } | undefined {
    const previous = this.#stateOf(sessionId);
    const now = this.#now();
    const { state, messages, parts } = applyMessage(previous, message, {
      sessionId,
      now,
      newId: this.#newId,
    });
    const inserted = this.#sql.insertRaw.run(
      sessionId,
      state.messageCount,
      message.uuid,
      message.type,
      JSON.stringify(message),
      now,
      messages.length > 0 ? JSON.stringify(messages) : null,
      parts.length > 0 ? JSON.stringify(parts) : null,
    );
    if (inserted.changes === 0) return undefined;
    const text = JSON.stringify(state);
    this.#sql.updateState.run(now, text, sessionId);
    this.#keepState(sessionId, { text, state });
    return { state, now };
  }

  /**
   * Kept apart while this store holds the session's lock; else as the most recently used, the
   * least recently used going past #KEPT_STATES.
   */
  #keepState(sessionId: string, entry: { text: string; state: DeriveState }): void {
    this.#states.delete(sessionId);
    if (this.#locks.holds(sessionId)) return void this.#lockedStates.set(sessionId, entry);
    this.#states.set(sessionId, entry);
    if (this.#states.size > SqliteSessionStore.#KEPT_STATES)
      this.#states.delete(this.#states.keys().next().value as string);
  }

  /** The session's reducer state, decoded only when another writer changed it. */
  #stateOf(sessionId: string): DeriveState {
    const text = this.#sql.sessionState.get(sessionId);
    if (text === undefined) throw sessionNotFound(sessionId);
    return this.#decodeState(sessionId, text);
  }

  #require(sessionId: string): SessionRecord {
    const row = this.#sql.getSession.get(sessionId);
    if (!row) throw sessionNotFound(sessionId);
    return this.#decode(row);
  }

  #decode(row: SessionRow): SessionRecord {
    return sessionRecordFromRow(row, this.#decodeState(row.id, row.state));
  }

  #decodeState(sessionId: string, text: string): DeriveState {
    const cached = this.#lockedStates.get(sessionId) ?? this.#states.get(sessionId);
    if (cached !== undefined && cached.text === text) return cached.state;
    const state = decodeState(text, `${this.path} (session ${sessionId})`);
    this.#keepState(sessionId, { text, state });
    return state;
  }

  #run<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (isGyreError(error)) throw error;
      throw storeError(this.path, error);
    }
  }
}
