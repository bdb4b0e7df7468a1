// The Open Responses server in a program of your own (`gyre serve` is the same server), driven
// with the official `openai` client: a function tool the client runs, continued with
// `previous_response_id`, then a streamed answer. The agentic loop runs on the server.
//
//   npm run example -- server-openai-client [--mock]
import OpenAI from "openai";
import { serve } from "gyre/server";

// On 127.0.0.1, a free port; no API keys configured, so only this machine's clients are answered.
// Upstream keys (ANTHROPIC_API_KEY, …) come from this process's environment.
const server = await serve({ port: 0 });
try {
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused-on-loopback" });
  const model = "anthropic/claude-sonnet-5-5";
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: "function",
      name: "get_time",
      description: "The local time in a city.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      strict: false,
    },
  ];

  // 1. The model calls the client's tool: the response completes with a function_call item.
  const first = await client.responses.create({ model, input: "What time is it in Oslo?", tools });
  const call = first.output.find((item) => item.type === "function_call");
  if (!call) throw new Error(`expected a function call, got ${JSON.stringify(first.output)}`);
  console.log(`function call: ${call.name}(${call.arguments})`);

  // 2. The client runs it and goes on from the stored response.
  const second = await client.responses.create({
    model,
    previous_response_id: first.id,
    input: [{ type: "function_call_output", call_id: call.call_id, output: "14:05" }],
    tools,
  });
  console.log(`answer: ${second.output_text}`);

  // 3. A streamed response: the spec's server-sent events, text deltas as they come.
  const stream = await client.responses.create({ model, input: "Say hello in Norwegian.", stream: true });
  process.stdout.write("streamed: ");
  for await (const event of stream) {
    if (event.type === "response.output_text.delta") process.stdout.write(event.delta);
    if (event.type === "response.completed")
      process.stdout.write(`\nusage: ${event.response.usage?.total_tokens} tokens\n`);
  }
} finally {
  await server.close();
}
