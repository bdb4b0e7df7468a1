// The OpenAI Agents SDK (`@openai/agents`) with gyre serve as its Responses backend: the SDK's
// Runner drives the agent, its function tool runs in this process (a client tool for the
// server), and the server runs the model calls against the scripted mock upstream.
//
// The SDK is installed by `npm run compat:install`, outside node_modules: it depends on openai 7,
// whose package.json declares Node >= 22, and `npm ci` stays free of engine warnings on Node 20.
// The Runner and the Responses model used here run on Node 20 as well: this test runs on
// whatever Node runs vitest, 20 on the project's machines, with nothing left out. The tool's
// parameters are written with the SDK's own zod, as a program beside the SDK would.
import { describe, expect, it } from "vitest";
import type { z as zod } from "zod";
import { mockTurn } from "../src/testing/index.js";
import { compatRequire } from "./compat-peers.js";
import { upstreamBody, withServer } from "./serve-support.js";

/** The part of the SDK this test uses (its own declarations sit in the compat install, outside the type check). */
interface AgentsSdk {
  Agent: new (config: { name: string; instructions: string; model: string; tools: unknown[] }) => object;
  OpenAIProvider: new (options: { baseURL: string; apiKey: string; useResponses: boolean }) => object;
  Runner: new (options: { modelProvider: object; tracingDisabled: boolean }) => {
    run(agent: object, input: string): Promise<{ finalOutput: unknown; state: { usage: { inputTokens: number } } }>;
  };
  setTracingDisabled(disabled: boolean): void;
  tool<Input>(options: {
    name: string;
    description: string;
    parameters: zod.ZodType<Input>;
    execute: (input: Input) => Promise<string>;
  }): unknown;
}

const KEY = "agents-sdk-key-123456";

describe("OpenAI Agents SDK against gyre serve", () => {
  it("runs an agent whose function tool the SDK executes between two server responses", async () => {
    const { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } = compatRequire(
      "agents-sdk",
      "@openai/agents",
    ) as AgentsSdk;
    const { z } = compatRequire("agents-sdk", "zod") as { z: typeof zod };
    // No traces leave the machine.
    setTracingDisabled(true);
    const calls: string[] = [];
    const getWeather = tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push(city);
        return `${city}: sunny, 24 C`;
      },
    });
    const script = {
      turns: [
        mockTurn.toolUse("get_weather", { city: "Lisbon" }, { id: "call_lisbon" }),
        mockTurn.text("It is sunny in Lisbon, 24 C."),
      ],
    };
    await withServer(
      script,
      async ({ server, mock }) => {
        const provider = new OpenAIProvider({ baseURL: `${server.url}/v1`, apiKey: KEY, useResponses: true });
        const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
        const agent = new Agent({
          name: "Weather agent",
          instructions: "Answer weather questions with the get_weather tool.",
          model: "weather-model",
          tools: [getWeather],
        });
        const result = await runner.run(agent, "What is the weather in Lisbon?");
        expect(result.finalOutput).toBe("It is sunny in Lisbon, 24 C.");
        expect(calls).toEqual(["Lisbon"]);
        expect(mock.requests).toHaveLength(2);
        // The SDK's instructions reached the model, and its tool result came back through the server.
        expect(JSON.stringify(upstreamBody(mock, 0))).toContain("Answer weather questions");
        const second = JSON.stringify(upstreamBody(mock, 1));
        expect(second).toContain("Lisbon: sunny, 24 C");
        expect(second).toContain("What is the weather in Lisbon?");
        // The SDK sees the server's usage.
        expect(result.state.usage.inputTokens).toBeGreaterThan(0);
      },
      { apiKeys: [KEY], models: [{ name: "weather-model", model: "anthropic/claude-sonnet-4-5" }] },
    );
  }, 60_000);
});
