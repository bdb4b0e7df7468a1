// The loop's own cost per turn: a 200-turn scripted tool loop through query() against the
// mock server, and in the same run a bare client making the same 200 requests with the
// same provider package. Target: under 1 ms added per turn.
import { createAnthropic } from "@ai-sdk/anthropic";
import { z } from "zod";
import { defineTool, query } from "../dist/index.js";
import { startMockLLM } from "../dist/testing/index.js";

const TURNS = 200;
const ROUNDS = 7;

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

async function viaLoop() {
  const q = query({
    prompt: "go",
    options: {
      model: "anthropic/claude-sonnet-4-5",
      env,
      tools: [echo],
      systemPrompt: "bench",
      persistSession: false,
    },
  });
  let turns = 0;
  for await (const message of q) if (message.type === "result") turns = message.num_turns;
  if (turns !== TURNS) throw new Error(`loop ran ${turns} turns, expected ${TURNS}`);
}

async function viaBareClient() {
  const model = createAnthropic({ apiKey: "bench", baseURL: server.baseURL })("claude-sonnet-4-5");
  const tools = [
    {
      type: "function",
      name: "echo",
      description: "Echo the text back.",
      inputSchema: z.toJSONSchema(echo.inputSchema),
    },
  ];
  const prompt = [
    { role: "system", content: "bench" },
    { role: "user", content: [{ type: "text", text: "go" }] },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    const { stream } = await model.doStream({ prompt, tools, toolChoice: { type: "auto" } });
    const calls = [];
    for await (const part of stream) if (part.type === "tool-call") calls.push(part);
    if (calls.length === 0) break;
    prompt.push({
      role: "assistant",
      content: calls.map((c) => ({
        type: "tool-call",
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        input: JSON.parse(c.input),
      })),
    });
    prompt.push({
      role: "tool",
      content: calls.map((c) => ({
        type: "tool-result",
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        output: { type: "text", value: JSON.parse(c.input).text },
      })),
    });
  }
}

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Warm up both paths (JIT, connection pool), then alternate to share any drift.
await viaBareClient();
await viaLoop();
const loopTimes = [];
const bareTimes = [];
for (let round = 0; round < ROUNDS; round++) {
  bareTimes.push(await time(viaBareClient));
  loopTimes.push(await time(viaLoop));
}
await server.close();

const loopMs = median(loopTimes);
const bareMs = median(bareTimes);
const addedPerTurn = (loopMs - bareMs) / TURNS;
console.log(`loop ${TURNS} turns: ${loopMs.toFixed(0)} ms; bare client: ${bareMs.toFixed(0)} ms`);
console.log(
  `loop added per turn: ${addedPerTurn.toFixed(3)} ms (target < 1 ms); ratio loop/bare: ${(loopMs / bareMs).toFixed(2)}x`,
);
