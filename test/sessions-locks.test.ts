import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import { openPostgresSessionStore, openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { compileSessionsForChild, killHard, startLockHolder } from "./sessions-child.js";
import { prompt } from "./sessions-fixtures.js";
import { openTestPostgresStore, TEST_DATABASE_URL } from "./sessions-postgres-helper.js";

let entry: string;
let cleanupCompiled: () => void;
const children: ChildProcess[] = [];

beforeAll(() => {
  ({ entry, cleanup: cleanupCompiled } = compileSessionsForChild());
});
afterAll(() => cleanupCompiled());
afterEach(async () => {
  await Promise.all(children.splice(0).map(killHard));
});

async function busyError(store: SessionStore, sessionId: string): Promise<Error> {
  const error = await store.acquireLock(sessionId, "parent").then(
    () => {
      throw new Error("expected session_busy");
    },
    (caught: unknown) => caught,
  );
  expect(isGyreError(error, "session_busy")).toBe(true);
  return error as Error;
}

describe("SQLite session locks across processes", () => {
  const SCRIPT = `
    const { openSqliteSessionStore } = await import(process.env.ENTRY);
    const store = openSqliteSessionStore({ path: process.env.DB });
    await store.acquireLock(process.env.SESSION, "child-holder");
    process.stdout.write("locked\\n");
    setInterval(() => {}, 1 << 30);
  `;
  let dir: string;
  let path: string;
  let store: SessionStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gyre-locks-"));
    path = join(dir, "sessions.db");
    store = openSqliteSessionStore({ path });
    await store.createSession({ id: "s1", cwd: dir });
    await store.createSession({ id: "s2", cwd: dir });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a lock a live child process holds, naming it, and takes it over once the child is SIGKILLed", async () => {
    const child = await startLockHolder(SCRIPT, { ENTRY: entry, DB: path, SESSION: "s1" });
    children.push(child);
    const error = await busyError(store, "s1");
    expect(error.message).toBe(`Session s1 is in use by child-holder (pid ${child.pid} on ${hostname()})`);

    await killHard(child);
    const lock = await store.acquireLock("s1", "parent");
    expect(lock.owner).toBe("parent");
    await lock.release();
  });

  it("takes over a live holder's lock whose heartbeat is older than the TTL", async () => {
    const child = await startLockHolder(SCRIPT, { ENTRY: entry, DB: path, SESSION: "s2" });
    children.push(child);
    await busyError(store, "s2");
    const later = openSqliteSessionStore({ path, now: () => Date.now() + 10 * 60_000, lockTtlMs: 60_000 });
    try {
      const lock = await later.acquireLock("s2", "parent");
      await lock.release();
    } finally {
      await later.close();
    }
  });

  it("frees the lock for the other process on release", async () => {
    const other = openSqliteSessionStore({ path });
    try {
      const lock = await store.acquireLock("s1", "first");
      expect((await busyError(other, "s1")).message).toContain("first");
      await lock.release();
      await (await other.acquireLock("s1", "second")).release();
    } finally {
      await other.close();
    }
  });
});

describe("PostgreSQL session locks across processes", () => {
  const SCRIPT = `
    const { openPostgresSessionStore } = await import(process.env.ENTRY);
    const store = await openPostgresSessionStore({ connectionString: process.env.URL, schema: process.env.SCHEMA });
    await store.acquireLock(process.env.SESSION, "child-holder");
    process.stdout.write("locked\\n");
    setInterval(() => {}, 1 << 30);
  `;

  it("refuses a lock a child holds; the server frees it when the child is SIGKILLed", async () => {
    const { store, schema, cleanup } = await openTestPostgresStore();
    try {
      await store.createSession({ id: "s1", cwd: "/repo" });
      const appName = `gyre_lock_child_${schema}`;
      const url = `${TEST_DATABASE_URL}?application_name=${appName}`;
      const child = await startLockHolder(SCRIPT, { ENTRY: entry, URL: url, SCHEMA: schema, SESSION: "s1" });
      children.push(child);
      expect((await busyError(store, "s1")).message).toBe(
        `Session s1 is in use by child-holder (pid ${child.pid} on ${hostname()})`,
      );

      await killHard(child);
      await waitForBackendsGone(appName);
      const lock = await store.acquireLock("s1", "parent");
      await lock.release();
      await (await store.acquireLock("s1", "again")).release();
    } finally {
      await cleanup();
    }
  });
});

/** The server drops a dead client's backend (and its advisory locks) when it sees the socket close. */
async function waitForBackendsGone(applicationName: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
        [applicationName],
      );
      if (rows[0]?.n === "0") return;
      await client.query("SELECT pg_sleep(0.01)");
    }
  } finally {
    await client.end();
  }
}

describe("PostgreSQL session locks in one process", () => {
  it("holds every lock on one connection: more sessions run than the pool has connections, and still write", async () => {
    const { schema, cleanup } = await openTestPostgresStore();
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    const store = await openPostgresSessionStore({ pool, schema });
    try {
      const ids = ["a", "b", "c", "d", "e"];
      for (const id of ids) await store.createSession({ id, cwd: "/repo" });
      // One lock per connection would take both of the pool's, and the third lock (or any append) would wait forever.
      const locks = await Promise.all(ids.map((id) => store.acquireLock(id, `run ${id}`)));
      await Promise.all(ids.map((id) => store.append(id, prompt(id, `hello ${id}`))));
      expect((await busyError(store, "c")).message).toBe("Session c is in use by another run in this process (run c)");
      await Promise.all(locks.map((lock) => lock.release()));
      await (await store.acquireLock("c", "again")).release();
      expect(pool.totalCount).toBeLessThanOrEqual(2);
    } finally {
      await store.close();
      await pool.end();
      await cleanup();
    }
  });
});
