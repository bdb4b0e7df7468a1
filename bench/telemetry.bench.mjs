// What tracing costs the loop: the 200-turn scripted tool loop of loop.bench.mjs (400 spans a
// run: invoke_agent, 200 chat, 199 execute_tool) through query(), alternating runs without a
// tracer provider (the API's no-op spans: what every program without telemetry pays) and with
// the real SDK recording into an in-memory exporter (the SDK from `npm run compat:install`).
// Target: under 0.1 ms per recorded span; off, loop.bench.mjs's per-turn time is unchanged.
import { createRequire } from "node:module";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, query } from "../dist/index.js";
import { startMockLLM } from "../dist/testing/index.js";
import { peerDir } from "../scripts/compat-install.mjs";

const TURNS = 200;
const ROUNDS = 7;

let sdk;
try {
  sdk = createRequire(join(peerDir("otel-sdk"), "package.json"))("@opentelemetry/sdk-trace");
} catch (error) {
  console.error(`telemetry bench: the OpenTelemetry SDK is not installed (npm run compat:install): ${error.message}`);
  process.exit(1);
}
const exporter = new sdk.InMemorySpanExporter();
const provider = new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer("bench");

const echo = defineTool({
  name: "echo",
  description: "Echo the text back.",
  inputSchema: z.object({ text: z.string() }),
  readOnly: true,
  execute: ({ text }) => text,
});
const script = {
  turns: [
    ...Array.from({ length: TURNS - 1 }, (_, i) => ({
      content: [{ type: "tool_use", name: "echo", input: { text: `step ${i}` } }],
      usage: { input_tokens: 1000 + i, output_tokens: 20 },
    })),
    { content: [{ type: "text", text: "done" }], usage: { input_tokens: 1200, output_tokens: 5 } },
  ],
};
const server = await startMockLLM({ script });
const env = { ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: server.baseURL };

async function run(traced) {
  const q = query({
    prompt: "go",
    options: {
      model: "anthropic/claude-sonnet-4-5",
      env,
      tools: [echo],
      systemPrompt: "bench",
      persistSession: false,
      ...(traced && { tracer }),
    },
  });
  let turns = 0;
  for await (const message of q) if (message.type === "result") turns = message.num_turns;
  if (turns !== TURNS) throw new Error(`loop ran ${turns} turns, expected ${TURNS}`);
}

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await run(false);
await run(true);
await provider.forceFlush();
exporter.reset();
const off = [];
const on = [];
let spans = 0;
for (let round = 0; round < ROUNDS; round++) {
  off.push(await time(() => run(false)));
  on.push(await time(() => run(true)));
  await provider.forceFlush();
  spans = exporter.getFinishedSpans().length;
  exporter.reset();
}
await server.close();
await provider.shutdown();

const offMs = median(off);
const onMs = median(on);
console.log(
  `loop ${TURNS} turns, no tracer provider: ${offMs.toFixed(0)} ms (${(offMs / TURNS).toFixed(3)} ms a turn)`,
);
console.log(`loop ${TURNS} turns, SDK + in-memory exporter: ${onMs.toFixed(0)} ms, ${spans} spans a run`);
console.log(`recorded span cost: ${((onMs - offMs) / spans).toFixed(4)} ms a span (target < 0.1 ms)`);
