import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const ledger = defineTool({
  name: "ledger",
  description: "Records an entry.",
  inputSchema: z.object({ entry: z.string() }),
  execute: ({ entry }) => `recorded ${entry}`,
});

const [anthropic, responses] = FORMATS;

describe.each([anthropic, responses])("guard rails through the loop over $name", (format) => {
  it("lets a PreToolUse callback deny a call, with its reason sent to the model", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [ledger],
        permissionMode: "bypassPermissions",
        hooks: {
          PreToolUse: [
            {
              matcher: "ledger",
              hooks: [
                async () => ({
                  hookSpecificOutput: {
                    hookEventName: "PreToolUse",
                    permissionDecision: "deny",
                    permissionDecisionReason: "ledger is frozen",
                  },
                }),
              ],
            },
          ],
        },
      });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true, content: "ledger is frozen" });
      expect(resultOf(messages).permission_denials).toHaveLength(1);
    });
  });

  it("lets a PreToolUse callback rewrite the input, and PostToolUse add context for the model", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "draft" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [ledger],
        permissionMode: "bypassPermissions",
        hooks: {
          PreToolUse: [
            {
              hooks: [
                async () => ({
                  hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { entry: "final" } },
                }),
              ],
            },
          ],
          PostToolUse: [
            {
              hooks: [
                async () => ({
                  hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "AUDITED-42" },
                }),
              ],
            },
          ],
        },
      });
      expect(String(toolResults(messages)[0]?.content)).toContain("recorded final");
      expect(JSON.stringify(server.requests[1]?.body)).toContain("AUDITED-42");
    });
  });

  it('reports a crashing hook under onFailure: "block" to the caller and denies the call', async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [ledger],
        permissionMode: "bypassPermissions",
        hooks: {
          PreToolUse: [
            {
              hooks: [
                async () => {
                  throw new Error("hook exploded");
                },
              ],
              onFailure: "block",
            },
          ],
        },
      });
      const report = messages.find((m) => m.type === "system" && m.subtype === "hook_response");
      expect(JSON.stringify(report)).toContain("hook exploded");
      expect(toolResults(messages)[0]).toMatchObject({
        is_error: true,
        content: expect.stringContaining("hook exploded"),
      });
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("runs a settings-file shell hook whose exit code 2 blocks the call with its stderr", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-hooks-"));
    mkdirSync(join(cwd, ".gyre"));
    writeFileSync(
      join(cwd, ".gyre", "settings.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "ledger",
              hooks: [{ type: "command", command: "echo 'entries are read-only today' >&2; exit 2" }],
            },
          ],
        },
      }),
    );
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [ledger],
        cwd,
        permissionMode: "bypassPermissions",
        settingSources: ["project"],
      });
      expect(toolResults(messages)[0]).toMatchObject({
        is_error: true,
        content: expect.stringContaining("entries are read-only today"),
      });
    });
  });

  it("keeps the agent going when a Stop hook blocks, a bounded number of times", async () => {
    const script = {
      turns: [mockTurn.text("first"), mockTurn.text("second"), mockTurn.text("third"), mockTurn.text("fourth")],
    };
    await withMock(script, async (server) => {
      let calls = 0;
      const messages = await runQuery(server, format, "go", {
        tools: [],
        maxStopHookContinuations: 2,
        hooks: {
          Stop: [
            {
              hooks: [
                async (input) => {
                  calls++;
                  expect((input as { stop_hook_active: boolean }).stop_hook_active).toBe(calls > 1);
                  return { decision: "block", reason: "Also run the tests." };
                },
              ],
            },
          ],
        },
      });
      expect(calls).toBe(2);
      expect(server.requests).toHaveLength(3);
      expect(JSON.stringify(server.requests[1]?.body)).toContain("Also run the tests.");
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "third" });
    });
  });

  it("refuses a compound Bash command when only its first part is allowed", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-perm-"));
    const marker = join(cwd, "pwned");
    const script = {
      turns: [
        mockTurn.toolUse("Bash", { command: `echo hi && touch ${marker}` }),
        mockTurn.toolUse("Bash", { command: "echo allowed" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: ["Bash"],
        cwd,
        allowedTools: ["Bash(echo:*)"],
      });
      const [denied, allowed] = toolResults(messages);
      expect(denied?.is_error).toBe(true);
      expect(existsSync(marker)).toBe(false);
      expect(String(allowed?.content)).toContain("allowed");
      expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Bash"]);
    });
  });

  it("sends a Notification hook when it asks canUseTool for permission", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const notes: string[] = [];
      await runQuery(server, format, "go", {
        tools: [ledger],
        canUseTool: async () => ({ behavior: "allow" }),
        hooks: {
          Notification: [
            {
              hooks: [
                async (input) => {
                  notes.push((input as { message: string }).message);
                  return {};
                },
              ],
            },
          ],
        },
      });
      expect(notes).toEqual(["Gyre needs your permission to use ledger"]);
    });
  });

  it("adds SessionStart and UserPromptSubmit context to the prompt, and lets UserPromptSubmit block it", async () => {
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, format, "deploy it", {
        tools: [],
        hooks: {
          SessionStart: [
            {
              hooks: [
                async () => ({
                  hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "ON-CALL: ada" },
                }),
              ],
            },
          ],
          UserPromptSubmit: [
            {
              hooks: [
                async () => ({
                  hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "FREEZE-WINDOW" },
                }),
              ],
            },
          ],
        },
      });
      const body = JSON.stringify(server.requests[0]?.body);
      expect(body).toContain("ON-CALL: ada");
      expect(body).toContain("FREEZE-WINDOW");
      expect(resultOf(messages).subtype).toBe("success");
    });
    await withMock({ turns: [mockTurn.text("never")] }, async (server) => {
      const messages = await runQuery(server, format, "rm -rf everything", {
        tools: [],
        hooks: {
          UserPromptSubmit: [{ hooks: [async () => ({ decision: "block", reason: "prompt refused by policy" })] }],
        },
      });
      expect(server.requests).toHaveLength(0);
      expect(resultOf(messages)).toMatchObject({
        terminal_reason: "hook_stopped",
        errors: ["prompt refused by policy"],
      });
    });
  });

  it("lets a PermissionRequest hook answer instead of canUseTool", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      let asked = 0;
      const messages = await runQuery(server, format, "go", {
        tools: [ledger],
        canUseTool: async () => {
          asked++;
          return { behavior: "deny", message: "no" };
        },
        hooks: {
          PermissionRequest: [
            {
              hooks: [
                async () => ({
                  hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
                }),
              ],
            },
          ],
        },
      });
      expect(asked).toBe(0);
      expect(toolResults(messages)[0]?.content).toBe("recorded x");
    });
  });

  it("denies tools with side effects in plan mode", async () => {
    const script = { turns: [mockTurn.toolUse("ledger", { entry: "x" }), mockTurn.text("planned")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [ledger], permissionMode: "plan" });
      expect(toolResults(messages)[0]).toMatchObject({
        is_error: true,
        content: expect.stringContaining("plan mode"),
      });
    });
  });

  it("stops a doom loop when nobody approves the repetition", async () => {
    const same = () => mockTurn.toolUse("ledger", { entry: "again" });
    const script = { turns: [same(), same(), same(), same(), mockTurn.text("never")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [ledger], allowedTools: ["ledger"] });
      const result = resultOf(messages);
      expect(result).toMatchObject({ terminal_reason: "doom_loop", is_error: true });
      expect(toolResults(messages).map((r) => Boolean(r.is_error))).toEqual([false, false, true]);
      expect(server.requests).toHaveLength(3);
    });
  });

  it("asks canUseTool about a doom loop, and goes on when it is approved", async () => {
    const same = () => mockTurn.toolUse("ledger", { entry: "again" });
    const script = { turns: [same(), same(), same(), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const kinds: string[] = [];
      const messages = await runQuery(server, format, "go", {
        tools: [ledger],
        allowedTools: ["ledger"],
        doomLoopThreshold: 3,
        canUseTool: async (_name, _input, context) => {
          kinds.push(context.kind);
          return { behavior: "allow" };
        },
      });
      expect(kinds).toEqual(["doom_loop"]);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
    });
  });
});
