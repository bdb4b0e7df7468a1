// The loop's per-turn overhead with session persistence on (SQLite, the default) vs off:
// the same 200-turn scripted run via query() against the mock LLM, interleaved, several
// rounds. Also prints the time spent inside the store per turn, measured directly.
// Build first: npx tsc -p tsconfig.build.json
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, query } from "../dist/index.js";
import { openSqliteSessionStore } from "../dist/sessions/index.js";
import { mockTurn, startMockLLM } from "../dist/testing/index.js";

const TURNS = Number(process.env.GYRE_BENCH_TURNS ?? 200);
const ROUNDS = Number(process.env.GYRE_BENCH_ROUNDS ?? 5);

const noop = defineTool({
  name: "noop",
  description: "Does nothing.",
  inputSchema: z.object({ n: z.number() }),
  readOnly: true,
  execute: ({ n }) => `ok ${n}`,
});

const turns = [];
for (let n = 0; n < TURNS - 1; n++) turns.push(mockTurn.toolUse("noop", { n }));
turns.push(mockTurn.text("done"));

/**
 * A store wrapper that adds up the time spent in `append`. The SQLite store does all its
 * work before `append` returns its promise, so the clock stops there: awaiting the promise
 * would also count whatever else the loop had queued on the microtask queue meanwhile.
 */
function timed(store) {
  const timing = { ms: 0 };
  const wrapper = Object.create(store);
  wrapper.append = (...args) => {
    const started = performance.now();
    const done = store.append(...args);
    timing.ms += performance.now() - started;
    return done;
  };
  for (const name of [
    "createSession",
    "acquireLock",
    "getSessionMessages",
    "latestSession",
    "forkSession",
    "saveCheckpoint",
  ])
    wrapper[name] = store[name].bind(store);
  return { wrapper, timing };
}

async function run(server, options) {
  const started = performance.now();
  let turnsRun = 0;
  for await (const message of query({
    prompt: "go",
    options: {
      model: "anthropic/claude-sonnet-4-5",
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.baseURL },
      tools: [noop],
      ...options,
    },
  })) {
    if (message.type === "result") turnsRun = message.num_turns;
  }
  if (turnsRun !== TURNS) throw new Error(`ran ${turnsRun} turns, expected ${TURNS}`);
  return performance.now() - started;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dir = mkdtempSync(join(tmpdir(), "gyre-bench-persist-"));
const server = await startMockLLM({ script: { turns } });
try {
  const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
  const { wrapper, timing } = timed(store);
  const off = [];
  const on = [];
  const inStore = [];
  await run(server, { persistSession: false }); // warm up
  for (let round = 0; round < ROUNDS; round++) {
    off.push(await run(server, { persistSession: false }));
    timing.ms = 0;
    on.push(await run(server, { sessionStore: wrapper }));
    inStore.push(timing.ms);
  }
  await store.close();
  const perTurn = (ms) => (ms / TURNS).toFixed(3);
  console.log(`loop, ${TURNS} turns, persistence off: ${perTurn(median(off))} ms/turn (median of ${ROUNDS})`);
  console.log(`loop, ${TURNS} turns, SQLite (synchronous=normal): ${perTurn(median(on))} ms/turn`);
  console.log(
    `persistence overhead: ${perTurn(median(on) - median(off))} ms/turn end to end, ` +
      `${perTurn(median(inStore))} ms/turn inside the store (${(((median(inStore) / TURNS) * 1000) / 3).toFixed(0)} µs per message)`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
