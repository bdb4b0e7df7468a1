import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/protocol/index.js";
import { createServer } from "../src/server/index.js";
import {
  openPostgresSessionStore,
  openSqliteSessionStore,
  PostgresSessionStore,
  type SessionStore,
} from "../src/sessions/index.js";
import { migratePostgres, POSTGRES_MIGRATIONS } from "../src/sessions/postgres-migrations.js";
import { mockTurn, startMockLLM } from "../src/testing/index.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

// test/fixtures/legacy-serve-store.db was written by `gyre serve` before responses and
// conversations had tables of their own (see legacy-serve-store.mjs), and .json holds what that
// server answered about them. Opened by today's store, the migration moves them: the server
// must answer the same, and go on with the chain and the conversation.

const FIXTURE = new URL("fixtures/legacy-serve-store.db", import.meta.url).pathname;
const ANSWERS = JSON.parse(readFileSync(new URL("fixtures/legacy-serve-store.json", import.meta.url), "utf8")) as {
  key: string;
  responses: Record<string, { response: { previous_response_id: string | null }; inputItems: unknown }>;
  background: { id: string; stream: string };
  conversation: { object: { id: string }; items: unknown };
};
const MODEL = "anthropic/claude-sonnet-4-5";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A copy of the fixture to open: opening a WAL database, even to read, writes files beside it. */
function fixtureCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "gyre-legacy-store-"));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "sessions.db");
  copyFileSync(FIXTURE, path);
  return path;
}

/** The fixture's sessions, as its raw rows say: each session's columns and its stored messages. */
function legacySessions(): Array<{ id: string; cwd: string; project: string; messages: SDKMessage[] }> {
  const db = new Database(fixtureCopy(), { readonly: true });
  try {
    const sessions = db.prepare("SELECT id, cwd, project FROM sessions ORDER BY created_at, id").all() as Array<{
      id: string;
      cwd: string;
      project: string;
    }>;
    const messages = db.prepare("SELECT data FROM session_messages WHERE session_id = ? ORDER BY seq");
    return sessions.map((session) => ({
      ...session,
      messages: (messages.all(session.id) as Array<{ data: string }>).map((row) => JSON.parse(row.data) as SDKMessage),
    }));
  } finally {
    db.close();
  }
}

/** What the server on `store` answers about the fixture's records, and that it goes on from them. */
async function expectSameAnswers(store: SessionStore): Promise<void> {
  // The mock answers by the number of assistant turns it is sent: the conversation has one, the chain two.
  const turns = [mockTurn.text("Not asked."), mockTurn.text("Blue."), mockTurn.text("Sunny.")];
  const mock = await startMockLLM({ script: { turns } });
  cleanups.push(() => mock.close());
  const app = createServer({ sessionStore: store, apiKeys: [ANSWERS.key], env: mock.env() });
  const request = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const answer = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${ANSWERS.key}`, "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    expect(answer.status, `${method} ${path}`).toBe(200);
    return answer;
  };
  const call = async (method: string, path: string, body?: unknown) =>
    (await (await request(method, path, body)).json()) as Record<string, unknown>;

  for (const [id, expected] of Object.entries(ANSWERS.responses)) {
    expect(await call("GET", `/v1/responses/${id}`)).toEqual(expected.response);
    expect(await call("GET", `/v1/responses/${id}/input_items?order=asc`)).toEqual(expected.inputItems);
  }
  const replayed = await request("GET", `/v1/responses/${ANSWERS.background.id}?stream=true`);
  expect(await replayed.text()).toBe(ANSWERS.background.stream);
  const conversationId = ANSWERS.conversation.object.id;
  expect(await call("GET", `/v1/conversations/${conversationId}`)).toEqual(ANSWERS.conversation.object);
  expect(await call("GET", `/v1/conversations/${conversationId}/items?order=asc`)).toEqual(ANSWERS.conversation.items);

  // The chain (first → its function call) and the conversation go on from the moved records.
  const [chained] = Object.entries(ANSWERS.responses).find(([, { response }]) => response.previous_response_id)!;
  const next = await call("POST", "/v1/responses", {
    model: MODEL,
    previous_response_id: chained,
    input: [{ type: "function_call_output", call_id: "toolu_legacy_1", output: "sunny" }],
  });
  expect(next).toMatchObject({ status: "completed" });
  expect(JSON.stringify(next.output)).toContain("Sunny.");
  const upstream = JSON.stringify(mock.requests[0]?.body);
  for (const text of ["Hello", "First answer.", "Weather in Oslo?", "sunny"]) expect(upstream).toContain(text);
  const more = await call("POST", "/v1/responses", { model: MODEL, input: "And now?", conversation: conversationId });
  expect(more).toMatchObject({ status: "completed" });
  expect(JSON.stringify(more.output)).toContain("Blue.");
  expect(JSON.stringify(mock.requests[1]?.body)).toContain("Remember: blue.");
  const items = (await call("GET", `/v1/conversations/${conversationId}/items?order=asc`)) as { data: unknown[] };
  expect(items.data).toHaveLength(5);

  // The sessions that carried the records are gone; the runs' sessions stay, as `gyre sessions` shows them.
  const runs = legacySessions().filter((session) => session.id.endsWith("-run"));
  const kept = await store.listSessions({ project: runs[0]!.project });
  expect(kept.map((session) => session.id).filter((id) => !id.endsWith("-run"))).toEqual([]);
  for (const run of runs) expect(await store.getSessionMessages(run.id)).toEqual(run.messages);
}

describe("gyre serve's records in the layout before tables of their own", () => {
  it("SQLite: a store written by the old server answers the same once opened", async () => {
    const store = openSqliteSessionStore({ path: fixtureCopy() });
    cleanups.push(() => store.close());
    await expectSameAnswers(store);
  });

  it("PostgreSQL: a schema written in the old layout answers the same once opened", async () => {
    const schema = testSchemaName();
    cleanups.push(() => dropSchema(schema));
    // The old layout, written by the session store itself on a schema at version 3: the
    // fixture's sessions with their messages (raw and derived rows), as the old server wrote them.
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
    const client = await pool.connect();
    await migratePostgres(client, schema, POSTGRES_MIGRATIONS.slice(0, 3));
    client.release();
    const old = new PostgresSessionStore(pool, false, schema, {});
    for (const { messages, ...session } of legacySessions()) await old.createSession(session, messages);
    await pool.end();

    const store = await openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema });
    cleanups.push(() => store.close());
    await expectSameAnswers(store);
  });
});
