import { randomUUID } from "node:crypto";
import type { PgClientLike, PgPoolLike } from "./postgres-driver.js";
import { currentHost, describeHolder } from "./lock-liveness.js";
import { lockOwner, sessionBusy } from "./session-record.js";
import type { SessionLock } from "./store.js";

/**
 * Session locks as PostgreSQL advisory locks, all held by one pooled connection of the store
 * while it holds any: if the process dies, its connection closes and the server frees the
 * locks, so there is nothing stale to recover. One connection for all of them, not one each,
 * so that a server running more responses than its pool has connections still has
 * connections left to write with. A row in `session_lock_owners` only says who holds one, for
 * the `session_busy` message.
 */
export class PostgresLocks {
  readonly #pool: PgPoolLike;
  readonly #schema: string;
  readonly #s: string;
  readonly #now: () => number;
  /** The sessions this store holds (or is taking) locks on: advisory locks are re-entrant on one connection, so a second loop of this process is turned away here. */
  readonly #held = new Map<string, { owner: string; release?: () => Promise<void> }>();
  /** The connection new locks are taken on; a broken one is left for the next. */
  #current: LockConnection | undefined;

  constructor(pool: PgPoolLike, schema: string, quotedSchema: string, now: () => number) {
    this.#pool = pool;
    this.#schema = schema;
    this.#s = quotedSchema;
    this.#now = now;
  }

  async acquire(sessionId: string, owner: string | undefined): Promise<SessionLock> {
    const label = lockOwner(owner);
    const mine = this.#held.get(sessionId);
    if (mine)
      throw sessionBusy(sessionId, describeHolder({ owner: mine.owner, pid: process.pid, host: currentHost() }));
    const entry: { owner: string; release?: () => Promise<void> } = { owner: label };
    this.#held.set(sessionId, entry);
    const connection = this.#enter();
    const key = `gyre:${this.#schema}:${sessionId}`;
    let locked = false;
    try {
      const taken = await connection.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok",
        [key],
      );
      locked = taken.rows[0]?.ok === true;
      if (!locked) throw sessionBusy(sessionId, await this.#holder(connection, sessionId));
      const token = randomUUID();
      await connection.query(
        `INSERT INTO ${this.#s}.session_lock_owners (session_id, token, owner, pid, host, acquired_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, owner = excluded.owner,
           pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at`,
        [sessionId, token, label, process.pid, currentHost(), this.#now()],
      );
      let released: Promise<void> | undefined;
      entry.release = () => (released ??= this.#release(connection, sessionId, token, key));
      return { sessionId, owner: label, release: entry.release };
    } catch (error) {
      if (locked) await this.#unlock(connection, key);
      this.#held.delete(sessionId);
      await this.#leave(connection);
      throw error;
    }
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.#held.values()].map((held) => held.release?.()));
  }

  async #release(connection: LockConnection, sessionId: string, token: string, key: string): Promise<void> {
    try {
      await connection.query(`DELETE FROM ${this.#s}.session_lock_owners WHERE session_id = $1 AND token = $2`, [
        sessionId,
        token,
      ]);
    } catch {
      // Only the note of who holds it; the lock itself goes below.
    }
    await this.#unlock(connection, key);
    this.#held.delete(sessionId);
    await this.#leave(connection);
  }

  async #unlock(connection: LockConnection, key: string): Promise<void> {
    try {
      await connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]);
    } catch {
      // Destroying the connection (once nobody else uses it) frees the lock on the server.
      this.#broken(connection);
    }
  }

  /** The connection to take a lock on, counted as used until {@link #leave}. */
  #enter(): LockConnection {
    const connection = (this.#current ??= new LockConnection(this.#pool, (broken) => this.#broken(broken)));
    connection.users++;
    return connection;
  }

  /** Gives the pool back a connection that holds no more locks (destroyed when it broke). */
  async #leave(connection: LockConnection): Promise<void> {
    if (--connection.users > 0) return;
    if (this.#current === connection) this.#current = undefined;
    await connection.close();
  }

  /** A connection that failed holds no locks any more, or may hold one it should not: new locks go elsewhere. */
  #broken(connection: LockConnection): void {
    connection.broken = true;
    if (this.#current === connection) this.#current = undefined;
  }

  async #holder(connection: LockConnection, sessionId: string): Promise<string> {
    const found = await connection.query<{ owner: string; pid: number; host: string }>(
      `SELECT owner, pid, host FROM ${this.#s}.session_lock_owners WHERE session_id = $1`,
      [sessionId],
    );
    const row = found.rows[0];
    return row ? describeHolder(row) : "another process";
  }
}

/**
 * A pooled connection that holds advisory locks, and how many locks use it. Its queries run one
 * after another: the locks of concurrent runs share it, and a connection takes one query at a time.
 */
class LockConnection {
  users = 0;
  broken = false;
  readonly client: Promise<PgClientLike>;
  readonly #onError: () => void;
  #last: Promise<unknown> = Promise.resolve();

  query<Row>(text: string, params: unknown[]): Promise<{ rows: Row[] }> {
    const next = this.#last.then(
      async () => (await this.client).query<Row>(text, params),
      async () => (await this.client).query<Row>(text, params),
    );
    this.#last = next.catch(() => {});
    return next;
  }

  constructor(pool: PgPoolLike, onBroken: (connection: LockConnection) => void) {
    // A connection that fails while idle must not crash the process; its locks are gone with it.
    this.#onError = () => onBroken(this);
    this.client = pool.connect().then((client) => {
      client.on("error", this.#onError);
      return client;
    });
    this.client.catch(() => onBroken(this));
  }

  async close(): Promise<void> {
    const client = await this.client.catch(() => undefined);
    if (!client) return;
    client.off("error", this.#onError);
    client.release(this.broken ? new Error("a session lock connection failed") : undefined);
  }
}
