// A client-executed tool: `get_weather` has no `execute`, so when the model calls it the run
// pauses (`terminal_reason: "requires_action"`) with the call in `pending_tool_calls`. The program
// runs the call itself (here: a table; in an app: a browser, a person, another service) and
// resumes the stored session with the result, in this process or in another one days later.
//
//   npm run example -- client-tool-resume [--mock]
import { defineTool, query, type SDKMessage, type SDKResultMessage, toolResultsPrompt } from "gyre";
import { z } from "zod";

const getWeather = defineTool({
  name: "get_weather",
  description: "Current weather in a city.",
  inputSchema: z.object({ city: z.string() }),
  // No `execute`: the caller answers the calls.
});
const options = { model: "anthropic/claude-sonnet-5-5", tools: [getWeather], maxTurns: 5 };

/** Runs one query to its result message. */
async function resultOf(run: AsyncIterable<SDKMessage>): Promise<SDKResultMessage> {
  for await (const message of run) if (message.type === "result") return message;
  throw new Error("the run ended without a result");
}

const paused = await resultOf(query({ prompt: "What is the weather in Oslo?", options }));
console.log(`paused: ${paused.terminal_reason} (session ${paused.session_id})`);

const weather: Record<string, string> = { Oslo: "snow, -3 °C", Lisbon: "sun, 19 °C" };
const answers = (paused.pending_tool_calls ?? []).map((call) => {
  const { city } = call.input as { city: string };
  console.log(`the model asks: ${call.name}(${JSON.stringify(call.input)})`);
  return { toolUseId: call.id, content: weather[city] ?? "unknown city" };
});

// Everything the run needs is in its session: resume it with the tool results as the prompt.
const done = await resultOf(
  query({ prompt: toolResultsPrompt(answers), options: { ...options, resume: paused.session_id } }),
);
console.log(`${done.subtype}: ${done.subtype === "success" ? done.result : done.terminal_reason}`);
