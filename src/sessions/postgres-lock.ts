import { randomUUID } from "node:crypto";
import type { PgClientLike, PgPoolLike } from "./postgres-driver.js";
import { currentHost, describeHolder } from "./lock-liveness.js";
import { lockOwner, sessionBusy } from "./session-record.js";
import type { SessionLock } from "./store.js";

/**
 * Session locks as PostgreSQL advisory locks, each held by a dedicated pooled connection
 * for as long as the lock is held: if the process dies, its connection closes and the
 * server frees the lock, so there is nothing stale to recover. A row in
 * `session_lock_owners` only says who holds it, for the `session_busy` message.
 */
export class PostgresLocks {
  readonly #pool: PgPoolLike;
  readonly #schema: string;
  readonly #s: string;
  readonly #now: () => number;
  readonly #held = new Map<string, () => Promise<void>>();

  constructor(pool: PgPoolLike, schema: string, quotedSchema: string, now: () => number) {
    this.#pool = pool;
    this.#schema = schema;
    this.#s = quotedSchema;
    this.#now = now;
  }

  async acquire(sessionId: string, owner: string | undefined): Promise<SessionLock> {
    const label = lockOwner(owner);
    const key = `gyre:${this.#schema}:${sessionId}`;
    const client = await this.#pool.connect();
    // A connection that fails while idle must not crash the process; the lock is gone with it.
    const ignore = (): void => {};
    client.on("error", ignore);
    let locked = false;
    try {
      const taken = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [
        key,
      ]);
      locked = taken.rows[0]?.ok === true;
      if (!locked) throw sessionBusy(sessionId, await this.#holder(client, sessionId));
      const token = randomUUID();
      await client.query(
        `INSERT INTO ${this.#s}.session_lock_owners (session_id, token, owner, pid, host, acquired_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, owner = excluded.owner,
           pid = excluded.pid, host = excluded.host, acquired_at = excluded.acquired_at`,
        [sessionId, token, label, process.pid, currentHost(), this.#now()],
      );
      let released: Promise<void> | undefined;
      const release = (): Promise<void> => {
        released ??= this.#release(client, sessionId, token, key, ignore);
        return released;
      };
      this.#held.set(token, release);
      return { sessionId, owner: label, release };
    } catch (error) {
      if (locked) await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]).catch(ignore);
      client.off("error", ignore);
      client.release();
      throw error;
    }
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.#held.values()].map((release) => release()));
  }

  async #release(client: PgClientLike, sessionId: string, token: string, key: string, ignore: () => void) {
    this.#held.delete(token);
    let broken: Error | undefined;
    try {
      await client.query(`DELETE FROM ${this.#s}.session_lock_owners WHERE session_id = $1 AND token = $2`, [
        sessionId,
        token,
      ]);
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]);
    } catch (error) {
      // Destroying the connection frees the advisory lock on the server.
      broken = error instanceof Error ? error : new Error(String(error));
    } finally {
      client.off("error", ignore);
      client.release(broken);
    }
  }

  async #holder(client: PgClientLike, sessionId: string): Promise<string> {
    const found = await client.query<{ owner: string; pid: number; host: string }>(
      `SELECT owner, pid, host FROM ${this.#s}.session_lock_owners WHERE session_id = $1`,
      [sessionId],
    );
    const row = found.rows[0];
    return row ? describeHolder(row) : "another process";
  }
}
