import { metrics, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { GyreError, type QueryOptions, query, type SDKUserMessageInput } from "../src/index.js";
import { FORMATS, mockEnv, runQuery, withMock } from "./helpers.js";
import { nodeFetch } from "../src/net/index.js";

const answer = { turns: [{ content: [{ type: "text" as const, text: "ok" }] }] };

/** The error `query()` throws for these options, with no request sent to the mock server. */
async function rejected(options: Record<string, unknown>): Promise<GyreError> {
  return withMock(answer, async (server) => {
    let thrown: unknown;
    try {
      query({ prompt: "hi", options: { env: mockEnv(server), persistSession: false, ...options } as QueryOptions });
    } catch (error) {
      thrown = error;
    }
    expect(server.requests).toHaveLength(0);
    expect(thrown).toBeInstanceOf(GyreError);
    expect((thrown as GyreError).code).toBe("config_error");
    return thrown as GyreError;
  });
}

describe("query() options are checked before anything runs", () => {
  it.each([
    [
      "maxThinkingTokens",
      1024,
      /`maxThinkingTokens` is a Claude Agent SDK option Gyre does not support; use `thinking/,
    ],
    [
      "managedSettings",
      {},
      /`managedSettings` is a Claude Agent SDK option Gyre does not support; use `settingSources`/,
    ],
    ["stderr", () => {}, /`stderr` is a Claude Agent SDK option Gyre does not support/],
  ])("names the Claude Agent SDK option %s that Gyre lacks, and what to use", async (key, value, message) => {
    const error = await rejected({ [key]: value });
    expect(error.message).toMatch(message);
  });

  it("suggests the option a typo meant", async () => {
    const error = await rejected({ maxTurn: 3, AllowedTools: ["Read"] });
    expect(error.message).toContain("`maxTurn` is not an option of query(); did you mean `maxTurns`?");
    expect(error.message).toContain("`AllowedTools` is not an option of query(); did you mean `allowedTools`?");
  });

  it("says an unknown option with nothing near it is unknown", async () => {
    const error = await rejected({ frobnicate: true });
    expect(error.message).toContain("`frobnicate` is not an option of query().");
  });

  it.each([
    [{ permissionMode: "yolo" }, "options.permissionMode", '"yolo"'],
    [{ maxTurns: -1 }, "options.maxTurns", "-1"],
    [{ maxTurns: 0 }, "options.maxTurns", "0"],
    [{ maxTurns: 2.5 }, "options.maxTurns", "2.5"],
    [{ maxBudgetUsd: -0.5 }, "options.maxBudgetUsd", "-0.5"],
    [{ maxBudgetUsd: Number.POSITIVE_INFINITY }, "options.maxBudgetUsd", "Infinity"],
    [{ cwd: "" }, "options.cwd", '""'],
    [{ allowedTools: "Read" }, "options.allowedTools", '"Read"'],
    [{ tools: ["Read", 42] }, "options.tools.1", "42"],
    [{ settingSources: ["user", "global"] }, "options.settingSources.1", '"global"'],
    [{ canUseTool: "allow" }, "options.canUseTool", '"allow"'],
    [{ hooks: { PreToolUse: [{ hooks: ["echo hi"] }] } }, "options.hooks.PreToolUse.0.hooks.0", '"echo hi"'],
    [{ model: 42 }, "options.model", "42"],
    [{ env: { PATH: 1 } }, "options.env.PATH", "1"],
    [{ retry: { maxRetries: -1 } }, "options.retry.maxRetries", "-1"],
    [{ retry: { baseDelay: 5 } }, "options.retry", ""],
    [{ compaction: true }, "options.compaction", "true"],
    [{ compactor: { compact() {} } }, "options.compactor", "an object"],
    [{ context: "docs" }, "options.context", '"docs"'],
    [{ settings: 42 }, "options.settings", "42"],
    [{ thinking: { type: "on" } }, "options.thinking.type", '"on"'],
    [{ effort: "extreme" }, "options.effort", '"extreme"'],
    [{ providers: { local: { type: "ollama" } } }, "options.providers.local.type", '"ollama"'],
    [{ sessionStore: {} }, "options.sessionStore", "an object"],
    [{ abortController: { abort() {} } }, "options.abortController", "an object"],
    [{ tracer: {} }, "options.tracer", "an object"],
    [{ meter: { startSpan() {} } }, "options.meter", "an object"],
    [{ traceContent: "yes" }, "options.traceContent", '"yes"'],
    [{ mcpServers: { calc: { type: "http" } } }, "options.mcpServers.calc", "an object"],
    [{ mcpServers: { calc: { command: "x", argv: [] } } }, "options.mcpServers.calc", "an object"],
    [
      { mcpServers: { calc: { type: "http", url: "file:///etc/passwd" } } },
      "options.mcpServers.calc.url",
      '"file:///etc/passwd"',
    ],
  ])("rejects %j, naming %s and the value", async (options, path, shown) => {
    const error = await rejected(options);
    expect(error.message).toContain(`${path}:`);
    if (shown) expect(error.message).toContain(`(got ${shown})`);
  });

  it("lists every problem at once", async () => {
    const error = await rejected({ maxTurns: -1, permissionMode: "yolo", stderr: "x", agents: { a: { prompt: "" } } });
    expect(error.message).toContain("options.maxTurns");
    expect(error.message).toContain("options.permissionMode");
    expect(error.message).toContain("`stderr`");
    expect(error.message).toContain("options.agents.a.description");
  });

  it("accepts every option of QueryOptions with a value of the right kind", async () => {
    const ok = { content: [{ type: "text" as const, text: "ok" }] };
    // The answer and the structured-output reminder's answer.
    await withMock({ mode: "sequential", turns: [ok, ok] }, async (server) => {
      // Session options that need a stored session are checked in the sessions tests.
      type Unstored =
        "resume" | "continue" | "continueRun" | "forkSession" | "resumeSessionAt" | "approvals" | "sessionStore";
      const options: Required<Omit<QueryOptions, Unstored>> = {
        model: "anthropic/claude-sonnet-4-5",
        systemPrompt: { type: "preset", preset: "gyre", append: "Be brief." },
        maxTurns: 3,
        maxBudgetUsd: 1,
        maxBudgetTokens: 1_000_000,
        cwd: process.cwd(),
        tools: ["Read"],
        mcpServers: {},
        strictMcpConfig: true,
        toolSearch: "auto:5",
        agents: { scout: { description: "Finds files.", prompt: "Find files.", tools: ["Read"] } },
        agent: "scout",
        maxHandoffs: 3,
        maxSubagentDepth: 1,
        maxConcurrentSubagents: 2,
        onElicitation: async () => ({ action: "decline" }),
        allowedTools: ["Read"],
        disallowedTools: ["Bash(rm:*)"],
        abortController: new AbortController(),
        includePartialMessages: false,
        maxRetries: 1,
        fallbackModel: "openai/gpt-5",
        outputFormat: { type: "json_schema", schema: { type: "object", properties: {} } },
        maxStructuredOutputRetries: 1,
        canUseTool: async () => ({ behavior: "deny", message: "no" }),
        permissionHint: () => "allow it in your own way.",
        hooks: { Stop: [{ hooks: [async () => ({})] }] },
        permissionMode: "default",
        additionalDirectories: [],
        settingSources: [],
        skills: "all",
        plugins: [],
        settings: { permissions: { deny: ["Bash(rm:*)"] } },
        requireProjectTrust: false,
        sandbox: { enabled: false },
        webFetch: { smallModel: false, allowedLocalHosts: ["localhost"] },
        webSearch: { backend: "searxng", url: "http://127.0.0.1:8888" },
        doomLoopThreshold: 3,
        loopControlTools: false,
        maxToolReminders: 1,
        compaction: { keepRecentTurns: 2 },
        compactor: {
          needsCompaction: () => false,
          compact: async (history, { trigger }) => ({
            history: [...history],
            trigger,
            preTokens: 0,
            postTokens: 0,
            pruned: 0,
          }),
        },
        context: [{ title: "Style", text: "Tabs, not spaces." }],
        stopAtTools: [],
        maxStopHookContinuations: 1,
        sessionId: "00000000-0000-4000-8000-000000000001",
        passEnv: [],
        env: mockEnv(server),
        providers: {},
        fetch: nodeFetch,
        pricing: {},
        maxOutputTokens: 1000,
        providerOptions: {},
        thinking: { type: "enabled", budgetTokens: 2000 },
        effort: "high",
        toolTimeoutMs: 1000,
        maxToolInputBytes: 1024,
        maxTokensContinuations: 1,
        maxMessages: 40,
        snapshots: false,
        retry: { baseDelayMs: 1 },
        persistSession: false,
        newUuid: () => crypto.randomUUID(),
        now: () => Date.now(),
        tracer: trace.getTracer("options-test"),
        meter: metrics.getMeter("options-test"),
        traceContent: false,
      };
      const messages = [];
      for await (const message of query({ prompt: "hi", options })) messages.push(message);
      expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "error_max_structured_output_retries" });
    });
  });
});

describe("thinking and effort", () => {
  const anthropic = FORMATS[0];
  const openai = FORMATS[1];

  it("are sent to Anthropic as its thinking and effort settings", async () => {
    await withMock(answer, async (server) => {
      await runQuery(server, anthropic, "hi", { thinking: { type: "enabled", budgetTokens: 2048 }, effort: "low" });
      const body = server.requests[0]?.body as Record<string, unknown>;
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
      expect(body.output_config).toMatchObject({ effort: "low" });
    });
  });

  it("effort is OpenAI's reasoning effort, and providerOptions win over both", async () => {
    await withMock(answer, async (server) => {
      await runQuery(server, openai, "hi", { effort: "high" });
      await runQuery(server, openai, "hi", { effort: "high", providerOptions: { openai: { reasoningEffort: "low" } } });
      const [first, second] = server.requests.map((request) => request.body as { reasoning?: { effort?: string } });
      expect(first?.reasoning?.effort).toBe("high");
      expect(second?.reasoning?.effort).toBe("low");
    });
  });
});

describe("streamed prompts", () => {
  async function* messages(...items: unknown[]) {
    for (const item of items) yield item as SDKUserMessageInput;
  }

  it("take user messages without uuid, session_id or parent_tool_use_id, as the Claude Agent SDK does", async () => {
    await withMock(answer, async (server) => {
      const out = await runQuery(
        server,
        FORMATS[0],
        messages({ type: "user", message: { role: "user", content: "hi" } }),
      );
      expect(out.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "ok" });
      expect(JSON.stringify(server.requests[0]?.body)).toContain('"hi"');
    });
  });

  it("reject a message that is not a user message with invalid_prompt, naming what is wrong", async () => {
    await withMock(answer, async (server) => {
      const run = runQuery(server, FORMATS[0], messages({ type: "user", message: { role: "user", text: "hi" } }));
      await expect(run).rejects.toMatchObject({ code: "invalid_prompt", message: /message\.content/ });
      expect(server.requests).toHaveLength(0);
    });
  });
});
