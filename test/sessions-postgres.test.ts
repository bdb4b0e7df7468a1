import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import { initialDeriveState, openPostgresSessionStore, type PostgresSessionStore } from "../src/sessions/index.js";
import { migratePostgres, POSTGRES_MIGRATIONS } from "../src/sessions/postgres-migrations.js";
import { prompt, sampleTurn } from "./sessions-fixtures.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

const schemas: string[] = [];
const stores: PostgresSessionStore[] = [];

async function open(schema: string, extra: { pool?: pg.Pool } = {}): Promise<PostgresSessionStore> {
  const store = await openPostgresSessionStore({
    schema,
    ...(extra.pool ? { pool: extra.pool } : { connectionString: TEST_DATABASE_URL }),
  });
  stores.push(store);
  return store;
}

function newSchema(): string {
  const schema = testSchemaName();
  schemas.push(schema);
  return schema;
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(schemas.splice(0).map(dropSchema));
});

describe("PostgreSQL session store", () => {
  it("is reachable for these tests (they fail, never skip, without a server)", async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.end();
  });

  it("reports an unreachable server as session_store_error", async () => {
    const error = await openPostgresSessionStore({
      connectionString: "postgres://postgres@127.0.0.1:1/test",
      schema: "unused",
    }).catch((caught: unknown) => caught);
    expect(isGyreError(error, "session_store_error")).toBe(true);
    expect((error as Error).message).toContain("ECONNREFUSED");
  });

  it("migrates once when several instances start on a new schema together", async () => {
    const schema = newSchema();
    await Promise.all([open(schema), open(schema), open(schema)]);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query(`SELECT version FROM "${schema}".gyre_migrations ORDER BY version`);
    await client.end();
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
  });

  it("migration 2 keys the sessions of a version 1 schema by their cwd", async () => {
    const schema = newSchema();
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
    const client = await pool.connect();
    try {
      await migratePostgres(client, schema, POSTGRES_MIGRATIONS.slice(0, 1));
      await client.query(
        `INSERT INTO "${schema}".sessions (id, cwd, title, created_at, updated_at, parent_id, forked_from_message, state)
         VALUES ('old', '/repo', NULL, 1, 1, NULL, NULL, $1)`,
        [JSON.stringify(initialDeriveState(null))],
      );
    } finally {
      client.release();
      await pool.end();
    }
    const store = await open(schema);
    // Migration 3 keeps it a session someone started, not a subagent's.
    expect(await store.getSession("old")).toMatchObject({ cwd: "/repo", project: "/repo", parentToolUseId: null });
    expect((await store.latestSession("/repo"))?.id).toBe("old");
  });

  it("shares sessions between instances: appends from both keep order and derived rows", async () => {
    const schema = newSchema();
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    await a.createSession({ id: "s1", cwd: "/repo" });
    const turn = sampleTurn("s1");
    for (const [index, message] of turn.entries()) await (index % 2 === 0 ? a : b).append("s1", message);
    expect(await b.getSessionMessages("s1")).toEqual(turn);
    const derived = await a.getMessages("s1");
    expect(derived.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    expect(derived[1]?.parts.filter((p) => p.type === "tool").map((p) => p.type === "tool" && p.state.status)).toEqual([
      "completed",
      "error",
    ]);

    const burst = Array.from({ length: 30 }, (_, i) => prompt("s1", `burst ${i}`));
    await Promise.all(burst.map((message, i) => (i % 2 === 0 ? a : b).append("s1", message)));
    expect((await a.getSession("s1"))?.messageCount).toBe(turn.length + 30);
    expect((await b.getMessages("s1")).length).toBe(3 + 30);
  });

  it("uses a pool it is given and leaves it open on close", async () => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
    try {
      const store = await open(newSchema(), { pool });
      await store.createSession({ id: "s1", cwd: "/repo" });
      await store.close();
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it("names the schema and session when a stored row is unreadable", async () => {
    const schema = newSchema();
    const store = await open(schema);
    await store.createSession({ id: "s1", cwd: "/repo" });
    await store.append("s1", prompt("s1", "hi"));
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`UPDATE "${schema}".sessions SET state = 'not json'`);
    await client.end();
    const error = await store.getSession("s1").catch((caught: unknown) => caught);
    expect(isGyreError(error, "session_store_error")).toBe(true);
    expect((error as Error).message).toContain(schema);
    expect((error as Error).message).toContain("session s1");
  });
});
