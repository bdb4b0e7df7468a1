// Query.setPermissionMode and Query.setModel (as in the Claude Agent SDK): changes made while
// the run goes on apply from the next tool call or model call; bad values are clear errors.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, query, type SDKMessage } from "../src/index.js";
import { isGyreError } from "../src/errors/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { type Format, FORMATS, mockEnv, requestedModel, resultOf, toolResults, withMock } from "./helpers.js";

const ledger = defineTool({
  name: "ledger",
  description: "Records an entry.",
  inputSchema: z.object({ entry: z.string() }),
  execute: ({ entry }) => `recorded ${entry}`,
});

/** A model of the same provider as `format`'s, under another id. */
const OTHER_MODEL: Record<string, string> = {
  anthropic: "anthropic/claude-haiku-4-5",
  "openai-responses": "openai/gpt-5-mini",
  "openai-chat": "openai-chat/gpt-4o-mini",
};

/** A run with the ledger tool that may call it without asking. */
function ledgerQuery(server: MockLLMServer, format: Format) {
  return query({
    prompt: "go",
    options: {
      model: format.model,
      env: mockEnv(server),
      tools: [ledger],
      permissionMode: "bypassPermissions",
      persistSession: false,
    },
  });
}

describe.each(FORMATS)("run controls over $name", (format) => {
  it("setPermissionMode mid-run: a call denied in default mode is allowed after the switch", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("ledger", { entry: "first" }),
        mockTurn.toolUse("ledger", { entry: "second" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const modes: string[] = [];
      const q = query({
        prompt: "record two entries",
        options: {
          model: format.model,
          env: mockEnv(server),
          tools: [ledger],
          persistSession: false,
          hooks: {
            PreToolUse: [{ hooks: [async (input) => (modes.push(String(input.permission_mode)), {})] }],
          },
        },
      });
      const messages: SDKMessage[] = [];
      for await (const message of q) {
        messages.push(message);
        // After the first (denied) call's result, allow everything.
        if (message.type === "user" && toolResults([message]).length > 0 && modes.length === 1)
          await q.setPermissionMode("bypassPermissions");
      }
      const results = toolResults(messages);
      expect(results[0]).toMatchObject({ is_error: true });
      expect(results[1]).toMatchObject({ content: "recorded second" });
      expect(results[1]).not.toMatchObject({ is_error: true });
      expect(resultOf(messages).permission_denials).toHaveLength(1);
      // Hooks see the mode as it is when they run.
      expect(modes).toEqual(["default", "bypassPermissions"]);
    });
  });

  it("setPermissionMode before the run starts is the mode it starts in (init says so)", async () => {
    await withMock({ turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] }, async (server) => {
      const q = query({
        prompt: "go",
        options: { model: format.model, env: mockEnv(server), tools: [ledger], persistSession: false },
      });
      await q.setPermissionMode("bypassPermissions");
      const messages: SDKMessage[] = [];
      for await (const message of q) messages.push(message);
      expect(messages[0]).toMatchObject({ type: "system", subtype: "init", permissionMode: "bypassPermissions" });
      expect(toolResults(messages)[0]).toMatchObject({ content: "recorded x" });
    });
  });

  it("setModel mid-run: the next request names the new model and its cost is booked to it", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const other = OTHER_MODEL[format.name] as string;
      const q = ledgerQuery(server, format);
      const messages: SDKMessage[] = [];
      for await (const message of q) {
        messages.push(message);
        if (message.type === "assistant" && server.requests.length === 1) await q.setModel(other);
      }
      expect(server.requests.map((request) => requestedModel(request.body))).toEqual([
        format.model.split("/")[1],
        other.split("/")[1],
      ]);
      expect(Object.keys(resultOf(messages).modelUsage).sort()).toEqual([format.model, other].sort());
    });
  });

  it("setModel to a model that cannot be resolved rejects clearly; the run goes on with its model", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const q = ledgerQuery(server, format);
      const messages: SDKMessage[] = [];
      let failure: unknown;
      for await (const message of q) {
        messages.push(message);
        if (message.type === "assistant" && failure === undefined)
          failure = await q.setModel("nowhere/model").catch((error: unknown) => error);
      }
      expect(isGyreError(failure) && failure.code).toBe("unknown_provider");
      expect(resultOf(messages).subtype).toBe("success");
      expect(new Set(server.requests.map((request) => requestedModel(request.body)))).toEqual(
        new Set([format.model.split("/")[1]]),
      );
    });
  });
});

describe("run controls: bad values", () => {
  it("an unknown permission mode is a config_error naming the modes", async () => {
    const q = query({ prompt: "go", options: { persistSession: false } });
    const error = await q.setPermissionMode("yolo" as never).catch((e: unknown) => e);
    expect(isGyreError(error) && error.code).toBe("config_error");
    expect(String((error as Error).message)).toMatch(/acceptEdits/);
  });
});
