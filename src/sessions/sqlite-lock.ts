import { randomUUID } from "node:crypto";
import type { Database, Transaction } from "better-sqlite3";
import { currentHost, DEFAULT_LOCK_TTL_MS, describeHolder, isLockStale } from "./lock-liveness.js";
import { lockOwner, sessionBusy } from "./session-record.js";
import type { Statements } from "./sqlite-statements.js";
import type { SessionLock } from "./store.js";

/**
 * Session locks as rows: holder pid, host and a heartbeat. Taking one is a read and a write
 * in one IMMEDIATE transaction, so two processes cannot both win; a row whose holder died
 * (same host) or stopped beating (older than the TTL) is taken over.
 */
export class SqliteLocks {
  readonly #db: Database;
  readonly #sql: Statements;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #held = new Map<string, () => void>();
  /** How many of this store's locks each session holds (its run is in this process). */
  readonly #heldSessions = new Map<string, number>();
  readonly #released: (sessionId: string) => void;
  /** Made once (see SqliteSessionStore's appends): reads the lock's row and takes it if free. */
  readonly #take: Transaction<(sessionId: string, token: string, label: string) => void>;

  /** `released(sessionId)`: this store holds none of the session's locks any more. */
  constructor(
    db: Database,
    statements: Statements,
    now: () => number,
    ttlMs = DEFAULT_LOCK_TTL_MS,
    released: (sessionId: string) => void = () => {},
  ) {
    this.#db = db;
    this.#released = released;
    this.#take = db.transaction((sessionId: string, token: string, label: string) => {
      const row = this.#sql.getLock.get(sessionId);
      const now = this.#now();
      if (row) {
        const holder = { owner: row.owner, pid: row.pid, host: row.host, heartbeatAt: row.heartbeat_at };
        if (!isLockStale(holder, now, this.#ttlMs)) throw sessionBusy(sessionId, describeHolder(holder));
      }
      this.#sql.putLock.run(sessionId, token, label, process.pid, currentHost(), now, now);
    });
    this.#sql = statements;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  acquire(sessionId: string, owner: string | undefined): SessionLock {
    const label = lockOwner(owner);
    const token = randomUUID();
    this.#take.immediate(sessionId, token, label);

    const beat = setInterval(
      () => {
        try {
          this.#sql.heartbeat.run(this.#now(), sessionId, token);
        } catch {
          // The database is closing or busy; the next beat (or the TTL) settles it.
        }
      },
      Math.max(1000, Math.floor(this.#ttlMs / 3)),
    );
    beat.unref();

    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      clearInterval(beat);
      this.#held.delete(token);
      const count = (this.#heldSessions.get(sessionId) ?? 1) - 1;
      if (count > 0) this.#heldSessions.set(sessionId, count);
      else {
        this.#heldSessions.delete(sessionId);
        this.#released(sessionId);
      }
      if (this.#db.open) this.#sql.deleteLock.run(sessionId, token);
    };
    this.#held.set(token, release);
    this.#heldSessions.set(sessionId, (this.#heldSessions.get(sessionId) ?? 0) + 1);
    return { sessionId, owner: label, release: async () => release() };
  }

  /** Whether this store holds the session's lock: a run of this process is writing to it. */
  holds(sessionId: string): boolean {
    return this.#heldSessions.has(sessionId);
  }

  /** Releases every lock this store holds (on close). */
  releaseAll(): void {
    for (const release of [...this.#held.values()]) release();
  }
}
