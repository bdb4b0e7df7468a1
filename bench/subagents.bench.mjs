// What an `Agent` call costs beyond its subagent's own model round trip: a 100-turn run whose
// every turn starts a subagent that answers in one model call, against the same run whose
// tool makes that one model call itself with the same provider package (same request: the
// agent's system prompt and the task). The difference per call is the subagent's set-up,
// loop bookkeeping, message tagging and teardown. Target: under 2 ms per call. Measured twice:
// without a session, and with one in a SQLite file, where each subagent also gets a session
// of its own (created, its start stored in the parent, its prompt, messages and result
// stored in it, each write awaited) while the parent stores its messages no more.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import { z } from "zod";
import { defineTool, openSqliteSessionStore, query } from "../dist/index.js";
import { startMockLLM } from "../dist/testing/index.js";

const CALLS = 100;
const ROUNDS = 7;
const AGENT_PROMPT = "You are scout. Report briefly.";

const turns = [
  ...Array.from({ length: CALLS }, (_, i) => ({
    content: [
      { type: "tool_use", name: "Agent", input: { description: "look", prompt: `task ${i}`, subagent_type: "scout" } },
    ],
    usage: { input_tokens: 1000 + i, output_tokens: 20 },
  })),
  { content: [{ type: "text", text: "done" }], usage: { input_tokens: 1200, output_tokens: 5 } },
];
// The same turns calling the direct tool instead.
const directTurns = turns.map((turn) => ({
  ...turn,
  content: turn.content.map((block) => (block.type === "tool_use" ? { ...block, name: "ask" } : block)),
}));
const route = { system: "You are scout.", turns: [{ content: [{ type: "text", text: "found it" }] }] };
const server = await startMockLLM({ script: { turns, routes: [route] } });
const env = { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: server.baseURL };
const model = createAnthropic({ apiKey: "bench", baseURL: server.baseURL })("claude-sonnet-4-5");

const ask = defineTool({
  name: "ask",
  description: "Ask a question.",
  inputSchema: z.object({ description: z.string(), prompt: z.string(), subagent_type: z.string() }),
  readOnly: true,
  async execute({ prompt }) {
    const { stream } = await model.doStream({
      prompt: [
        { role: "system", content: AGENT_PROMPT },
        { role: "user", content: [{ type: "text", text: prompt }] },
      ],
    });
    let text = "";
    for await (const part of stream) if (part.type === "text-delta") text += part.delta;
    return text;
  },
});

const folder = mkdtempSync(join(tmpdir(), "gyre-bench-subagents-"));
const store = openSqliteSessionStore({ path: join(folder, "sessions.db") });
let persist = false;

async function run(tools, script) {
  server.setScript({ turns: script, routes: [route] });
  const q = query({
    prompt: "go",
    options: {
      model: "anthropic/claude-sonnet-4-5",
      env,
      tools,
      systemPrompt: "bench",
      ...(persist ? { sessionStore: store } : { persistSession: false }),
      agents: { scout: { description: "Looks around.", prompt: AGENT_PROMPT, tools: [] } },
    },
  });
  let result;
  for await (const message of q) if (message.type === "result") result = message;
  if (result?.num_turns !== CALLS + 1 || result.result !== "done")
    throw new Error(`unexpected end: ${JSON.stringify(result)}`);
}

const viaAgent = () => run(["Agent"], turns);
const viaDirect = () => run([ask], directTurns);

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label) {
  await viaDirect();
  await viaAgent();
  const agentTimes = [];
  const directTimes = [];
  for (let round = 0; round < ROUNDS; round++) {
    directTimes.push(await time(viaDirect));
    agentTimes.push(await time(viaAgent));
  }
  const agentMs = median(agentTimes);
  const directMs = median(directTimes);
  console.log(
    `${label}: ${CALLS} Agent calls: ${agentMs.toFixed(0)} ms; the same model calls made by a plain tool: ${directMs.toFixed(0)} ms`,
  );
  console.log(
    `${label}: added per Agent call: ${((agentMs - directMs) / CALLS).toFixed(3)} ms (target < 2 ms); ratio ${(agentMs / directMs).toFixed(2)}x`,
  );
}

try {
  await measure("no session");
  persist = true;
  await measure("SQLite session");
} finally {
  await server.close();
  await store.close();
  rmSync(folder, { recursive: true, force: true });
}
