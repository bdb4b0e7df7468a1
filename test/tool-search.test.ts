// Tool search through the loop: a real MCP server process with 300 tools (test/fixtures/
// mcp-many-tools-server.mjs, over stdio), the scripted mock LLM, and assertions on the request
// bodies the mock received on the wire.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HookCallback, MemorySessionStore, type McpStdioServerConfig } from "../src/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { FORMATS, type Format, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { initOf, text } from "./mcp-support.js";

const MANY = resolve("test/fixtures/mcp-many-tools-server.mjs");
const [anthropic, responses, chat] = FORMATS;
const REFUND = "mcp__many__refund_invoice";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The fixture server with `count` tools, logging the calls it runs to a file the test reads. */
function manyTools(count: number, alwaysLoad: string[] = []): { config: McpStdioServerConfig; calls: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), "gyre-tool-search-"));
  dirs.push(dir);
  const file = join(dir, "calls.log");
  return {
    config: { command: process.execPath, args: [MANY, String(count), file, alwaysLoad.join(",")] },
    calls: () => {
      try {
        return readFileSync(file, "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

interface WireTool {
  name: string;
  description: string;
  schema: Record<string, unknown> | undefined;
}

/** The tools of a request body as the provider received them (Anthropic, OpenAI Responses and Chat shapes). */
function wireTools(body: unknown): WireTool[] {
  const tools = (body as { tools?: Array<Record<string, unknown>> }).tools ?? [];
  return tools.map((tool) => {
    const fn = (tool.function ?? tool) as Record<string, unknown>;
    return {
      name: String(fn.name),
      description: String(fn.description ?? ""),
      schema: (fn.input_schema ?? fn.parameters) as Record<string, unknown> | undefined,
    };
  });
}

function requestTools(server: MockLLMServer, index: number): WireTool[] {
  const request = server.requests[index];
  if (!request) throw new Error(`no request ${index}`);
  return wireTools(request.body);
}

const mcpNames = (tools: WireTool[]) => tools.map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));

function run(server: MockLLMServer, format: Format, config: McpStdioServerConfig, options = {}) {
  return runQuery(server, format, "Refund invoice INV-7 twice.", { mcpServers: { many: config }, ...options });
}

describe("tool search with 300 tools of a real MCP server", () => {
  for (const format of [anthropic, responses, chat]) {
    it(`${format.name}: the first request sends the names only; ToolSearch loads a tool, whose full schema the next request carries; the server runs the call`, async () => {
      const server300 = manyTools(300);
      const hooked: string[] = [];
      const preToolUse: HookCallback = async (input) => {
        if (input.hook_event_name === "PreToolUse") hooked.push(input.tool_name);
        return {};
      };
      const turns = [
        mockTurn.toolUse("ToolSearch", { query: "refund invoice" }),
        mockTurn.toolUse(REFUND, { id: "INV-7", count: 2 }),
        mockTurn.text("Refunded."),
      ];
      await withMock({ turns }, async (server) => {
        const messages = await run(server, format, server300.config, {
          permissionMode: "bypassPermissions",
          hooks: { PreToolUse: [{ hooks: [preToolUse] }] },
        });
        expect(resultOf(messages).result).toBe("Refunded.");
        const offered = initOf(messages).tools.filter((name) => name.startsWith("mcp__"));
        expect(offered).toHaveLength(300);
        expect(initOf(messages).tools).toContain("ToolSearch");

        // Request 1: built-in tools and ToolSearch, whose description lists the 300 names; no MCP schema.
        const first = requestTools(server, 0);
        expect(mcpNames(first)).toEqual([]);
        const search = first.find((tool) => tool.name === "ToolSearch");
        expect(search?.schema).toMatchObject({ properties: { query: { type: "string" } }, required: ["query"] });
        const listed = search?.description.split("<available-deferred-tools>\n")[1]?.split("\n</available")[0];
        expect(listed?.split("\n")).toEqual(offered);
        expect(first.length).toBeLessThan(30);
        // The names cost a fraction of what the 300 definitions would.
        const firstSize = JSON.stringify(server.requests[0]?.body).length;
        expect(firstSize).toBeLessThan(60_000);

        // The search's result names the tools it loaded.
        const [found, called] = toolResults(messages).map((result) => text(result.content));
        expect(found).toContain(`{"description":"Refund a invoice in the back-office system.`);
        expect(found).toContain(`"name":"${REFUND}"`);

        // Request 2: the loaded tools with their full schemas (the keyword search's few matches only).
        const second = requestTools(server, 1);
        const loaded = mcpNames(second);
        expect(loaded).toContain(REFUND);
        expect(loaded.length).toBeLessThanOrEqual(5);
        expect(second.find((tool) => tool.name === REFUND)?.schema).toMatchObject({
          type: "object",
          properties: { id: { type: "string" }, count: { type: "integer" }, note: { type: "string" } },
          required: ["id", "count"],
        });
        expect(second.some((tool) => tool.name === "ToolSearch")).toBe(true);

        // The model's call ran in the server process, through the hooks like any call.
        expect(called).toMatch(/^refund_invoice ran in server pid (\d+) with \{"id":"INV-7","count":2\}$/);
        const pid = Number(/pid (\d+)/.exec(called ?? "")?.[1]);
        expect(pid).not.toBe(process.pid);
        expect(server300.calls()).toEqual([called]);
        expect(hooked).toEqual(["ToolSearch", REFUND]);

        // Request 3: the loaded tools stay loaded for the rest of the run.
        expect(mcpNames(requestTools(server, 2))).toEqual(loaded);
      });
    });
  }

  it("a deferred tool called before it is loaded is refused with how to load it; select: loads exactly that tool", async () => {
    const server300 = manyTools(300);
    const turns = [
      mockTurn.toolUse(REFUND, { id: "INV-7", count: 1 }),
      mockTurn.toolUse("ToolSearch", { query: `select:${REFUND}` }),
      mockTurn.toolUse(REFUND, { id: "INV-7", count: 1 }),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      const messages = await run(server, anthropic, server300.config, { permissionMode: "bypassPermissions" });
      const [refused, selected, ran] = toolResults(messages);
      expect(refused?.is_error).toBe(true);
      expect(text(refused?.content)).toBe(
        `Error: ${REFUND} is a deferred tool that has not been loaded, so it did not run: its schema was never sent ` +
          `to you. Load it first: call ToolSearch with query "select:${REFUND}", then call ${REFUND} again on your next turn.`,
      );
      expect(mcpNames(requestTools(server, 1))).toEqual([]);
      expect(selected?.is_error).toBeUndefined();
      expect(mcpNames(requestTools(server, 2))).toEqual([REFUND]);
      expect(text(ran?.content)).toMatch(/^refund_invoice ran in server pid \d+/);
      // The refused call never reached the server.
      expect(server300.calls()).toHaveLength(1);
      // What callers get besides the text (tool_use_result), in Claude Code's shape.
      const data = messages.flatMap((m) => (m.type === "user" && m.tool_use_result ? [m.tool_use_result] : []));
      expect(JSON.stringify(data)).toContain(
        JSON.stringify({ matches: [REFUND], query: `select:${REFUND}`, total_deferred_tools: 300 }),
      );
    });
  });

  it("a deny rule on a deferred tool still denies it once loaded; ToolSearch is not asked about", async () => {
    const server300 = manyTools(300);
    const turns = [
      mockTurn.toolUse("ToolSearch", { query: "+refund invoice" }),
      mockTurn.toolUse(REFUND, { id: "INV-7", count: 1 }),
      mockTurn.text("could not"),
    ];
    await withMock({ turns }, async (server) => {
      const asked: string[] = [];
      const messages = await run(server, anthropic, server300.config, {
        settings: { permissions: { deny: [REFUND] } },
        canUseTool: async (name: string, input: Record<string, unknown>) => {
          asked.push(name);
          return { behavior: "allow", updatedInput: input };
        },
      });
      const [found, denied] = toolResults(messages);
      expect(found?.is_error).toBeUndefined();
      expect(mcpNames(requestTools(server, 1))).toContain(REFUND);
      expect(denied?.is_error).toBe(true);
      expect(messages.some((m) => m.type === "system" && m.subtype === "permission_denied")).toBe(true);
      expect(asked).toEqual([]);
      expect(server300.calls()).toEqual([]);
    });
  });

  it("ToolSearch runs in plan mode (it only reads)", async () => {
    const server300 = manyTools(300);
    const turns = [mockTurn.toolUse("ToolSearch", { query: "refund" }), mockTurn.text("planned")];
    await withMock({ turns }, async (server) => {
      const messages = await run(server, anthropic, server300.config, { permissionMode: "plan" });
      const [found] = toolResults(messages);
      expect(found?.is_error).toBeUndefined();
      expect(text(found?.content)).toContain(`"name":"${REFUND}"`);
      expect(resultOf(messages).result).toBe("planned");
    });
  });

  it("a resumed session has the tools its ToolSearch calls loaded (derived from the history)", async () => {
    const server300 = manyTools(300);
    const sessionStore = new MemorySessionStore();
    const turns = [
      mockTurn.toolUse("ToolSearch", { query: `select:${REFUND},mcp__many__list_invoice` }),
      mockTurn.text("loaded"),
      mockTurn.text("still loaded"),
    ];
    await withMock({ turns }, async (server) => {
      const options = { persistSession: true, sessionStore };
      const first = await run(server, anthropic, server300.config, options);
      await run(server, anthropic, server300.config, { ...options, resume: first[0]?.session_id });
      expect(mcpNames(requestTools(server, 0))).toEqual([]);
      expect(mcpNames(requestTools(server, 1))).toEqual(["mcp__many__list_invoice", REFUND]);
      expect(mcpNames(requestTools(server, 2))).toEqual(["mcp__many__list_invoice", REFUND]);
    });
  });
});

describe("compaction", () => {
  it("counts the tools as sent: deferred schemas do not make a fresh run compact", async () => {
    // A 100k-token window: the 300 schemas (~63k tokens) would pass compaction's threshold alone.
    const pricing = { "claude-sonnet-4-5": { input: 3, output: 15, contextWindow: 100_000, maxOutputTokens: 32_000 } };
    const server300 = manyTools(300);
    await withMock({ turns: [mockTurn.text("hello")] }, async (server) => {
      const messages = await run(server, anthropic, server300.config, { pricing });
      expect(messages.some((m) => m.type === "system" && m.subtype === "compact_boundary")).toBe(false);
      expect(resultOf(messages).result).toBe("hello");
      expect(mcpNames(requestTools(server, 0))).toEqual([]);
    });
  });
});

describe("a tool its server marks alwaysLoad", () => {
  it('is sent whole from the first request while the others are deferred (_meta["anthropic/alwaysLoad"])', async () => {
    const server300 = manyTools(300, ["get_invoice"]);
    await withMock(
      { turns: [mockTurn.toolUse("mcp__many__get_invoice", { id: "INV-1", count: 1 }), mockTurn.text("ok")] },
      async (server) => {
        const messages = await run(server, anthropic, server300.config, { permissionMode: "bypassPermissions" });
        const first = requestTools(server, 0);
        expect(mcpNames(first)).toEqual(["mcp__many__get_invoice"]);
        const listed = first.find((tool) => tool.name === "ToolSearch")?.description ?? "";
        expect(listed).not.toContain("mcp__many__get_invoice");
        expect(listed).toContain(REFUND);
        expect(text(toolResults(messages)[0]?.content)).toMatch(/^get_invoice ran in server pid \d+/);
      },
    );
  });
});

describe("tool search in a subagent", () => {
  it("a subagent gets the MCP tools deferred too; its ToolSearch loads them into its own requests", async () => {
    const server300 = manyTools(300);
    const script = {
      turns: [
        mockTurn.toolUse("Agent", { description: "refund", prompt: "Refund INV-7.", subagent_type: "billing" }),
        mockTurn.text("Done."),
      ],
      routes: [
        {
          system: "You are billing.",
          turns: [
            mockTurn.toolUse("ToolSearch", { query: `select:${REFUND}` }),
            mockTurn.toolUse(REFUND, { id: "INV-7", count: 1 }),
            mockTurn.text("Refunded."),
          ],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await run(server, anthropic, server300.config, {
        permissionMode: "bypassPermissions",
        agents: { billing: { description: "Billing work.", prompt: "You are billing." } },
      });
      expect(resultOf(messages).result).toBe("Done.");
      const own = server.requests.filter((request) => JSON.stringify(request.body).includes("You are billing."));
      expect(own).toHaveLength(3);
      expect(mcpNames(wireTools(own[0]?.body))).toEqual([]);
      expect(wireTools(own[0]?.body).some((tool) => tool.name === "ToolSearch")).toBe(true);
      expect(mcpNames(wireTools(own[1]?.body))).toEqual([REFUND]);
      // The parent's next request loaded nothing: the subagent's history is its own.
      expect(mcpNames(requestTools(server, server.requests.length - 1))).toEqual([]);
      expect(server300.calls()).toHaveLength(1);
    });
  });
});

describe("when tool search is not in use", () => {
  it("below the threshold (10 tools) every schema is sent and there is no ToolSearch; toolSearch: true defers them", async () => {
    const server10 = manyTools(10);
    await withMock({ turns: [mockTurn.text("a"), mockTurn.text("b")] }, async (server) => {
      const below = await run(server, anthropic, server10.config);
      expect(initOf(below).tools).not.toContain("ToolSearch");
      const tools = requestTools(server, 0);
      expect(mcpNames(tools)).toHaveLength(10);
      expect(tools.find((tool) => tool.name === "mcp__many__create_invoice")?.schema).toMatchObject({
        required: ["id", "count"],
      });
      expect(tools.some((tool) => tool.name === "ToolSearch")).toBe(false);

      await run(server, anthropic, server10.config, { toolSearch: true });
      expect(mcpNames(requestTools(server, 1))).toEqual([]);
      expect(requestTools(server, 1).some((tool) => tool.name === "ToolSearch")).toBe(true);
    });
  });

  const off: Array<[string, Record<string, unknown>]> = [
    ["toolSearch: false", { toolSearch: false }],
    ["ENABLE_TOOL_SEARCH=false", { envExtra: { ENABLE_TOOL_SEARCH: "false" } }],
    [
      "ENABLE_TOOL_SEARCH=auto:50 (300 tools are under half the window)",
      { envExtra: { ENABLE_TOOL_SEARCH: "auto:50" } },
    ],
    ["settings env ENABLE_TOOL_SEARCH=false", { settings: { env: { ENABLE_TOOL_SEARCH: "false" } } }],
    ['disallowedTools: ["ToolSearch"]', { disallowedTools: ["ToolSearch"] }],
    ['a settings deny rule "ToolSearch"', { settings: { permissions: { deny: ["ToolSearch"] } } }],
  ];
  for (const [label, { envExtra, ...options }] of off) {
    it(`${label}: all 300 schemas on the first request`, async () => {
      const server300 = manyTools(300);
      await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
        const env = envExtra ? { env: { ...server.env(), ...(envExtra as Record<string, string>) } } : {};
        await run(server, anthropic, server300.config, { ...options, ...env });
        const tools = requestTools(server, 0);
        expect(mcpNames(tools)).toHaveLength(300);
        expect(tools.some((tool) => tool.name === "ToolSearch")).toBe(false);
      });
    });
  }

  it("an invalid ENABLE_TOOL_SEARCH is a config error naming it", async () => {
    const server300 = manyTools(3);
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const env = { ...server.env(), ENABLE_TOOL_SEARCH: "sometimes" };
      await expect(run(server, anthropic, server300.config, { env })).rejects.toThrow(
        /ENABLE_TOOL_SEARCH must be true, false, "auto" or "auto:N"/,
      );
    });
  });
});
