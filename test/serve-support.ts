import OpenAI from "openai";
import { type RunningServer, type ServeOptions, serve } from "../src/server/index.js";
import { openPostgresSessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, type MockScript, startMockLLM } from "../src/testing/index.js";
import { openTestPostgresStore, TEST_DATABASE_URL } from "./sessions-postgres-helper.js";

/** The upstream formats the server is tested against, by the Gyre model string that selects each. */
export const UPSTREAMS = [
  { name: "anthropic", model: "anthropic/claude-sonnet-4-5" },
  { name: "openai-responses", model: "openai/gpt-5" },
] as const;

/** A client function tool the tests offer (the model's calls come back to the client). */
export const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

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

/**
 * Two `gyre serve` instances on one PostgreSQL schema (as behind a load balancer), each with its
 * own store connection, against one mock upstream, for the duration of `fn`.
 */
export async function withTwoServersOnPostgres<T>(
  script: MockScript,
  fn: (served: { mock: MockLLMServer; onA: OpenAI; onB: OpenAI }) => Promise<T>,
): Promise<T> {
  const { store: storeA, schema, cleanup } = await openTestPostgresStore();
  const storeB = await openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema });
  try {
    return await withServer(
      script,
      async ({ client, mock }) => {
        const serverB = await serve({ port: 0, env: { ...mock.env() }, sessionStore: storeB });
        try {
          const onB = new OpenAI({ baseURL: `${serverB.url}/v1`, apiKey: "unused", maxRetries: 0 });
          return await fn({ mock, onA: client(), onB });
        } finally {
          await serverB.close();
        }
      },
      { sessionStore: storeA },
    );
  } finally {
    await storeB.close();
    await cleanup();
  }
}
