import OpenAI from "openai";
import { type RunningServer, type ServeOptions, serve } from "../src/server/index.js";
import { type MockLLMServer, type MockScript, startMockLLM } from "../src/testing/index.js";

/** The upstream formats the server is tested against, by the Gyre model string that selects each. */
export const UPSTREAMS = [
  { name: "anthropic", model: "anthropic/claude-sonnet-4-5" },
  { name: "openai-responses", model: "openai/gpt-5" },
] as const;

export interface Served {
  mock: MockLLMServer;
  server: RunningServer;
  /** The official client against the server (`apiKey` default: a placeholder the open server ignores). */
  client(apiKey?: string): OpenAI;
}

/** A mock LLM upstream and `gyre serve`'s app on a real loopback port, for the duration of `fn`. */
export async function withServer<T>(
  script: MockScript,
  fn: (served: Served) => Promise<T>,
  options: ServeOptions = {},
): Promise<T> {
  const mock = await startMockLLM({ script });
  const server = await serve({ port: 0, ...options, env: { ...mock.env(), ...options.env } });
  try {
    return await fn({
      mock,
      server,
      client: (apiKey = "unused") => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 }),
    });
  } finally {
    await server.close();
    await mock.close();
  }
}

/** The body of the mock's `index`th request (0-based). */
export function upstreamBody(mock: MockLLMServer, index: number): Record<string, unknown> {
  const request = mock.requests[index];
  if (!request) throw new Error(`the mock got no request ${index} (it got ${mock.requests.length})`);
  return request.body;
}
