// Session store throughput: append rate (SQLite, PostgreSQL) and the time to load a
// 10,000-message session. Build first: npx tsc -p tsconfig.build.json
// PostgreSQL: GYRE_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openPostgresSessionStore, openSqliteSessionStore } from "../dist/sessions/index.js";

const DATABASE_URL = process.env.GYRE_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const APPEND_COUNT = Number(process.env.GYRE_BENCH_APPENDS ?? 2000);
const LOAD_COUNT = 10_000;
const format = (n) => Math.round(n).toLocaleString("en-US");
const usage = (input, output) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});
const filler = (size) => randomBytes(size).toString("base64").slice(0, size);

/** One realistic agent turn (6 messages): prompt, call with an Edit, progress, result, answer, result. */
function turn(sessionId, n) {
  const callId = `toolu_${n}`;
  const base = { session_id: sessionId, parent_tool_use_id: null };
  return [
    {
      type: "user",
      uuid: randomUUID(),
      ...base,
      message: { role: "user", content: `Please fix bug #${n} in src/app.ts` },
    },
    {
      type: "assistant",
      uuid: randomUUID(),
      ...base,
      cost_usd: 0.004,
      message: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: "anthropic/claude-sonnet-4-5",
        content: [
          { type: "thinking", thinking: filler(400), signature: filler(200) },
          { type: "text", text: "I'll fix the off-by-one in the loop." },
          {
            type: "tool_use",
            id: callId,
            name: "Edit",
            input: { file_path: "/repo/src/app.ts", old_string: filler(800), new_string: filler(800) },
          },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: usage(12_000, 300),
      },
    },
    {
      type: "tool_progress",
      uuid: randomUUID(),
      ...base,
      tool_use_id: callId,
      tool_name: "Edit",
      elapsed_time_seconds: 0,
    },
    {
      type: "user",
      uuid: randomUUID(),
      ...base,
      isSynthetic: true,
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: callId, content: filler(3000) }],
      },
    },
    {
      type: "assistant",
      uuid: randomUUID(),
      ...base,
      cost_usd: 0.003,
      message: {
        id: `msg_${n}_b`,
        type: "message",
        role: "assistant",
        model: "anthropic/claude-sonnet-4-5",
        content: [{ type: "text", text: `Fixed. ${filler(300)}` }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: usage(15_000, 120),
      },
    },
    {
      type: "result",
      subtype: "success",
      uuid: randomUUID(),
      ...base,
      is_error: false,
      num_turns: 2,
      duration_ms: 5000,
      duration_api_ms: 4000,
      total_cost_usd: 0.007,
      usage: usage(27_000, 420),
      modelUsage: {},
      result: "Fixed.",
      stop_reason: "end_turn",
      permission_denials: [],
      terminal_reason: "completed",
    },
  ];
}

function messages(sessionId, count) {
  const out = [];
  for (let n = 0; out.length < count; n++) out.push(...turn(sessionId, n));
  return out.slice(0, count);
}

async function appendRate(store, label, count) {
  const session = await store.createSession({ cwd: "/bench" });
  const batch = messages(session.id, count);
  const started = performance.now();
  for (const message of batch) await store.append(session.id, message);
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label} append: ${format(count / seconds)} msg/s`);
}

async function loadTime(store, label) {
  const session = await store.createSession({ cwd: "/bench" });
  for (const message of messages(session.id, LOAD_COUNT)) await store.append(session.id, message);
  let started = performance.now();
  const raw = await store.getSessionMessages(session.id);
  const rawMs = performance.now() - started;
  started = performance.now();
  const derived = await store.getMessages(session.id);
  const derivedMs = performance.now() - started;
  if (raw.length !== LOAD_COUNT) throw new Error(`loaded ${raw.length} messages`);
  console.log(
    `${label} load ${format(LOAD_COUNT)} messages: ${format(rawMs)} ms (raw SDKMessages), ` +
      `${format(derivedMs)} ms (${format(derived.length)} derived messages with parts)`,
  );
}

async function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), "gyre-bench-"));
  try {
    for (const synchronous of ["full", "normal"]) {
      const store = openSqliteSessionStore({ path: join(dir, `${synchronous}.db`), synchronous });
      await appendRate(store, `sqlite (synchronous=${synchronous})`, APPEND_COUNT);
      if (synchronous === "full") await loadTime(store, "sqlite");
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres() {
  const schema = `gyre_bench_${randomBytes(4).toString("hex")}`;
  const store = await openPostgresSessionStore({ connectionString: DATABASE_URL, schema });
  try {
    await appendRate(store, "postgres", APPEND_COUNT);
    const sessions = 8;
    const ids = [];
    for (let i = 0; i < sessions; i++) ids.push((await store.createSession({ cwd: "/bench" })).id);
    const per = Math.ceil(APPEND_COUNT / sessions);
    const started = performance.now();
    await Promise.all(
      ids.map(async (id) => {
        for (const message of messages(id, per)) await store.append(id, message);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`postgres append (${sessions} sessions in parallel): ${format((per * sessions) / seconds)} msg/s`);
    await loadTime(store, "postgres");
  } finally {
    await store.close();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

await sqlite();
await postgres();
