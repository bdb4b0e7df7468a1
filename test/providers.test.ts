// The providers people use, through query() against the mock LLM in each one's real wire
// format: Gemini, Azure OpenAI, the hosted OpenAI-compatible presets, bare model ids, and
// budgets that cannot be kept without prices.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_PROVIDERS, type QueryOptions, query, resolveModel, type SDKMessage } from "../src/index.js";
import { type MockLLMServer, mockFault, mockTurn } from "../src/testing/index.js";
import { mockEnv, resultOf, withMock } from "./helpers.js";

async function run(server: MockLLMServer, options: QueryOptions, prompt = "go"): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  const q = query({
    prompt,
    options: { env: mockEnv(server), persistSession: false, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...options },
  });
  for await (const message of q) messages.push(message);
  return messages;
}

const PRESETS = ["openrouter", "groq", "deepseek", "xai", "mistral", "together", "fireworks"] as const;

describe("google/ (Gemini API)", () => {
  it("runs the loop: a tool call, its result sent back as a functionResponse, the answer, priced", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-gemini-"));
    await writeFile(join(cwd, "notes.txt"), "the answer is 42\n");
    const turns = [
      mockTurn.toolUse("Read", { file_path: join(cwd, "notes.txt") }),
      mockTurn.text("It says 42.", { usage: { input_tokens: 1000, output_tokens: 10 } }),
    ];
    await withMock({ mode: "sequential", turns }, async (server) => {
      const env = { GOOGLE_GENERATIVE_AI_API_KEY: "g-key", GOOGLE_GENERATIVE_AI_BASE_URL: `${server.url}/v1beta` };
      const messages = await run(server, { model: "google/gemini-2.5-flash", env, cwd, allowedTools: ["Read"] });
      const result = resultOf(messages);
      expect([result.subtype, result.result]).toEqual(["success", "It says 42."]);
      expect(server.requests.map((request) => request.path)).toEqual([
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
      ]);
      const [, second] = server.requests;
      const answered = JSON.stringify(second?.body.contents);
      expect(answered).toContain('"functionResponse"');
      expect(answered).toContain("the answer is 42");
      // gemini-2.5-flash: $0.30 in, $2.50 out per million tokens.
      const costs = messages.flatMap((message) => (message.type === "assistant" ? [message.cost_usd] : []));
      expect(costs[1]).toBeCloseTo((1000 * 0.3 + 10 * 2.5) / 1e6, 12);
      expect(result.unpriced_models).toBeUndefined();
    });
  });

  it("asks Gemini for thoughts with the thinking option", async () => {
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const env = { GOOGLE_GENERATIVE_AI_API_KEY: "g-key", GOOGLE_GENERATIVE_AI_BASE_URL: server.baseURL };
      await run(server, { model: "gemini-2.5-pro", env, thinking: { type: "enabled", budgetTokens: 2048 } });
      expect(server.requests[0]?.body.generationConfig).toMatchObject({
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      });
    });
  });
});

describe("azure/ (Azure OpenAI)", () => {
  it("sends the deployment to the Responses API with an api-key header, and says its cost is unknown", async () => {
    await withMock({ turns: [mockTurn.text("hello from azure")] }, async (server) => {
      const env = { AZURE_API_KEY: "az-key", AZURE_BASE_URL: `${server.url}/openai/v1` };
      const result = resultOf(await run(server, { model: "azure/my-gpt-5-deployment", env }));
      expect(result.result).toBe("hello from azure");
      expect(server.requests[0]).toMatchObject({
        path: "/openai/v1/responses",
        body: { model: "my-gpt-5-deployment" },
      });
      expect(server.requests[0]?.headers["api-key"]).toBe("az-key");
      // A deployment name says nothing of its price: the total leaves it out and says so.
      expect(result.unpriced_models).toEqual(["azure/my-gpt-5-deployment"]);
    });
  });

  it("needs its endpoint and key before any request", async () => {
    await expect(resolveModel("azure/d", { env: { AZURE_API_KEY: "k" } })).rejects.toMatchObject({
      code: "config_error",
      message: expect.stringContaining("AZURE_BASE_URL"),
    });
    await expect(resolveModel("azure/d", { env: { AZURE_BASE_URL: "http://127.0.0.1:9" } })).rejects.toMatchObject({
      code: "missing_api_key",
    });
  });
});

describe("hosted OpenAI-compatible presets", () => {
  it.each(PRESETS)("%s/ sends Chat Completions with its key to its base URL", async (name) => {
    const keyEnv = BUILTIN_PROVIDERS[name]?.apiKeyEnv ?? "";
    await expect(resolveModel(`${name}/some-model`, { env: {} })).rejects.toMatchObject({
      code: "missing_api_key",
      message: expect.stringContaining(keyEnv),
    });
    await withMock({ turns: [mockTurn.text(`hi from ${name}`)] }, async (server) => {
      const env = { [keyEnv]: `${name}-key`, [`${name.toUpperCase()}_BASE_URL`]: server.baseURL };
      const result = resultOf(await run(server, { model: `${name}/some-model`, env }));
      expect(result.result).toBe(`hi from ${name}`);
      expect(server.requests[0]).toMatchObject({ format: "openai-chat", body: { model: "some-model" } });
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${name}-key`);
    });
  });

  it.each(PRESETS)("%s/ defaults to the service's own address", async (name) => {
    const urls: string[] = [];
    const fetch = async (input: string | URL | Request) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return new Response(JSON.stringify({ error: { message: "no" } }), { status: 401 });
    };
    const keyEnv = BUILTIN_PROVIDERS[name]?.apiKeyEnv ?? "";
    const model = await resolveModel(`${name}/m`, { env: { [keyEnv]: "k" }, fetch });
    const events = model.stream({
      history: [{ role: "user", content: "hi" }],
      tools: [],
      signal: new AbortController().signal,
    });
    await expect(events.next()).rejects.toMatchObject({ code: "model_auth_error" });
    expect(urls).toEqual([`${BUILTIN_PROVIDERS[name]?.defaultBaseURL}/chat/completions`]);
    expect(urls[0]).toMatch(/^https:\/\//);
  });

  it("prices the models the services list", async () => {
    const env = { DEEPSEEK_API_KEY: "k", GROQ_API_KEY: "k" };
    expect((await resolveModel("deepseek/deepseek-chat", { env })).info).toMatchObject({ input: 0.28, output: 0.42 });
    expect((await resolveModel("groq/llama-3.3-70b-versatile", { env })).info).toMatchObject({ input: 0.59 });
    // The same id from a local server is not given a hosted service's price.
    expect((await resolveModel("ollama/deepseek-chat", { env })).info).toBeUndefined();
  });
});

describe("bare model ids", () => {
  it.each([
    ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "anthropic"],
    ["claude-haiku-4-5-20251001", "anthropic/claude-haiku-4-5-20251001", "anthropic"],
    ["gpt-5", "openai/gpt-5", "openai-responses"],
    ["o4-mini", "openai/o4-mini", "openai-responses"],
    ["gemini-2.5-pro", "google/gemini-2.5-pro", "gemini"],
  ] as const)("%s runs as %s", async (bare, id, format) => {
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const env = {
        ...mockEnv(server),
        GOOGLE_GENERATIVE_AI_API_KEY: "g",
        GOOGLE_GENERATIVE_AI_BASE_URL: server.baseURL,
      };
      const messages = await run(server, { model: bare, env });
      const init = messages[0];
      expect(init?.type === "system" && init.subtype === "init" && init.model).toBe(id);
      expect(server.requests[0]?.format).toBe(format);
      expect(Object.keys(resultOf(messages).modelUsage)).toEqual([id]);
    });
  });

  it("an id several providers serve is an error that lists the provider/ forms", async () => {
    await expect(resolveModel("llama-3.3-70b", { env: {} })).rejects.toMatchObject({
      code: "invalid_model",
      message: expect.stringContaining('"groq/llama-3.3-70b", "together/llama-3.3-70b"'),
    });
    await expect(resolveModel("gpt-oss-120b", { env: {} })).rejects.toMatchObject({ code: "invalid_model" });
    await expect(resolveModel("mystery-model", { env: {} })).rejects.toMatchObject({
      code: "invalid_model",
      message: expect.stringContaining('"openai-compatible/mystery-model"'),
    });
  });

  it("works for fallbackModel", async () => {
    const turns = [mockTurn.text("first", { faults: [{ type: "http", status: 400 }] }), mockTurn.text("second")];
    await withMock({ mode: "sequential", turns }, async (server) => {
      const messages = await run(server, { model: "claude-sonnet-4-5", fallbackModel: "gpt-5", maxRetries: 0 });
      const fallback = messages.find((message) => message.type === "system" && message.subtype === "model_fallback");
      expect(fallback).toBeDefined();
      expect(server.requests.map((request) => request.format)).toEqual(["anthropic", "openai-responses"]);
    });
  });
});

describe("budgets and prices", () => {
  /** A model that keeps calling a tool, each call 100k input tokens: a run only a limit ends. */
  const expensiveLoop = (calls: number) => ({
    mode: "sequential" as const,
    turns: Array.from({ length: calls }, (_, index) =>
      mockTurn.toolUse(
        "TodoWrite",
        { todos: [{ content: `step ${index}`, status: "pending", activeForm: "x" }] },
        {
          usage: { input_tokens: 100_000, output_tokens: 100 },
        },
      ),
    ),
  });

  it("a dollar budget with a model that has no price fails before the first request", async () => {
    await withMock(expensiveLoop(6), async (server) => {
      const options = { model: "openai-compatible/llama3", maxBudgetUsd: 0.5 };
      const env = { OPENAI_COMPATIBLE_BASE_URL: server.baseURL };
      await expect(run(server, { ...options, env })).rejects.toMatchObject({
        code: "unpriced_model",
        message: expect.stringMatching(/"openai-compatible\/llama3".*pricing.*maxBudgetTokens/s),
      });
      expect(server.requests).toHaveLength(0);
    });
  });

  it("an unpriced fallback model is refused up front too", async () => {
    await withMock(expensiveLoop(1), async (server) => {
      const env = { ...mockEnv(server), OPENAI_COMPATIBLE_BASE_URL: server.baseURL };
      const options = { model: "claude-sonnet-4-5", fallbackModel: "openai-compatible/llama3", maxBudgetUsd: 1, env };
      await expect(run(server, options)).rejects.toMatchObject({ code: "unpriced_model" });
      expect(server.requests).toHaveLength(0);
    });
  });

  it("with the model's price given, the dollar budget stops the run", async () => {
    await withMock(expensiveLoop(6), async (server) => {
      const messages = await run(server, {
        model: "openai-compatible/llama3",
        env: { OPENAI_COMPATIBLE_BASE_URL: server.baseURL },
        maxBudgetUsd: 0.25,
        pricing: { llama3: { input: 1, output: 1 } },
        allowedTools: ["TodoWrite"],
      });
      const result = resultOf(messages);
      // $0.1001 a call: the third call passes $0.25.
      expect([result.subtype, result.num_turns, server.requests.length]).toEqual(["error_max_budget_usd", 3, 3]);
      expect(result.total_cost_usd).toBeCloseTo(0.3003, 10);
      expect(result.unpriced_models).toBeUndefined();
    });
  });

  it("a token budget needs no prices, and the result says the cost is unknown", async () => {
    await withMock(expensiveLoop(6), async (server) => {
      const messages = await run(server, {
        model: "openai-compatible/llama3",
        env: { OPENAI_COMPATIBLE_BASE_URL: server.baseURL },
        maxBudgetTokens: 250_000,
        allowedTools: ["TodoWrite"],
      });
      const result = resultOf(messages);
      expect([result.subtype, result.terminal_reason, server.requests.length]).toEqual([
        "error_max_budget_usd",
        "max_budget",
        3,
      ]);
      expect(result.errors).toEqual(["Reached the budget of 250000 tokens (used 300300)."]);
      expect(result.unpriced_models).toEqual(["openai-compatible/llama3"]);
      // No call is passed off as free.
      const assistants = messages.filter((message) => message.type === "assistant");
      expect(assistants.length).toBe(3);
      expect(assistants.every((message) => message.cost_usd === undefined)).toBe(true);
    });
  });

  it("setModel to an unpriced model under a dollar budget is refused; a bare priced id is taken", async () => {
    const turns = [mockTurn.toolUse("TodoWrite", { todos: [] }), mockTurn.text("two")];
    await withMock({ mode: "sequential", turns }, async (server) => {
      const env = { ...mockEnv(server), OPENAI_COMPATIBLE_BASE_URL: server.baseURL };
      const q = query({
        prompt: "go",
        options: {
          model: "claude-sonnet-4-5",
          maxBudgetUsd: 5,
          env,
          persistSession: false,
          allowedTools: ["TodoWrite"],
        },
      });
      let refused: unknown;
      for await (const message of q) {
        if (message.type === "assistant" && refused === undefined) {
          refused = await q.setModel("openai-compatible/llama3").catch((error: unknown) => error);
          await q.setModel("gpt-5");
        }
      }
      expect(refused).toMatchObject({ code: "unpriced_model" });
      expect(server.requests.map((request) => request.format)).toEqual(["anthropic", "openai-responses"]);
    });
  });
});

describe("a Gemini stream cut mid-answer", () => {
  it("is retried, and the run ends with the whole answer", async () => {
    const turns = [mockTurn.text("one two three four five six", { faults: [mockFault.cut(2)] })];
    await withMock({ turns }, async (server) => {
      const env = { GOOGLE_GENERATIVE_AI_API_KEY: "g", GOOGLE_GENERATIVE_AI_BASE_URL: server.baseURL };
      const messages = await run(server, { model: "google/gemini-2.5-flash", env });
      expect(messages.some((message) => message.type === "system" && message.subtype === "api_retry")).toBe(true);
      expect(resultOf(messages).result).toBe("one two three four five six");
      expect(server.requests.map((request) => request.fault?.type)).toEqual(["cut", undefined]);
    });
  });
});
