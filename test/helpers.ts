import { z } from "zod";
import { defineTool, type QueryOptions, type QueryPrompt, query, type SDKMessage } from "../src/index.js";
import { type MockLLMServer, type MockScript, startMockLLM } from "../src/testing/index.js";

/** The wire formats every loop test runs in, and the model spec that selects each. */
export const FORMATS = [
  { name: "anthropic", model: "anthropic/claude-sonnet-4-5" },
  { name: "openai-responses", model: "openai/gpt-5" },
  { name: "openai-chat", model: "openai-chat/gpt-4o" },
] as const;

export type Format = (typeof FORMATS)[number];

/**
 * The environment for a `gyre` a test spawns: this process's, whose GYRE_HOME is the
 * throwaway folder of test/global-setup.ts (so sessions never land in the real home), plus `extra`.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const gyreHome = process.env.GYRE_HOME;
  if (!gyreHome) throw new Error("GYRE_HOME is not set: run the tests through vitest (test/global-setup.ts)");
  return { ...process.env, GYRE_HOME: gyreHome, ...extra };
}

/** Environment that points every provider at the mock server (`server.env()`, as the README shows). */
export function mockEnv(server: MockLLMServer): Record<string, string> {
  return { ...server.env() };
}

export async function withMock<T>(script: MockScript, fn: (server: MockLLMServer) => Promise<T>): Promise<T> {
  const server = await startMockLLM({ script });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** Run a query to its end against the mock server and collect every message. */
export async function runQuery(
  server: MockLLMServer,
  format: Format,
  prompt: QueryPrompt,
  options: QueryOptions = {},
): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  const q = query({
    prompt,
    options: {
      model: format.model,
      env: mockEnv(server),
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
      // Each test owns its state: no session database shared through the working directory.
      persistSession: false,
      ...options,
    },
  });
  for await (const message of q) messages.push(message);
  return messages;
}

/** The model id a request body names (every wire format has a top-level `model`). */
export function requestedModel(body: unknown): string {
  return String((body as { model?: unknown }).model);
}

/** The tool_result blocks of the run's user messages, in order. */
export function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === "tool_result")
      : [],
  );
}

export function resultOf(messages: SDKMessage[]): Extract<SDKMessage, { type: "result" }> {
  const result = messages.at(-1);
  if (result?.type !== "result") throw new Error(`last message is ${result?.type}, not result`);
  return result;
}

export const calculator = defineTool({
  name: "calculator",
  description: "Evaluate a + b, a * b, a - b or a / b.",
  inputSchema: z.object({ a: z.number(), b: z.number(), op: z.enum(["+", "-", "*", "/"]) }),
  readOnly: true,
  execute: ({ a, b, op }) => {
    const value = op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b;
    return String(value);
  },
});
