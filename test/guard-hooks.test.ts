import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions, SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

// Issue 8, item 7: a hook whose answer we cannot read completely is a failed hook, and a
// failed hook never lets through what its success could have stopped. Real hook processes,
// configured in the project's settings file, through the loop with the mock model.

const [format] = FORMATS;

let cwd: string;

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "gyre-guard-hooks-")));
  mkdirSync(join(cwd, ".gyre"));
});

afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
});

type CommandHook = { command: string; timeout?: number };

/** Write the project's settings with these command hooks, by event. */
function settingsHooks(hooks: Record<string, Array<CommandHook | string>>): void {
  const command = (hook: CommandHook | string) => ({
    type: "command",
    ...(typeof hook === "string" ? { command: hook } : hook),
  });
  const entries = Object.fromEntries(
    Object.entries(hooks).map(([event, list]) => [event, [{ hooks: list.map(command) }]]),
  );
  writeFileSync(join(cwd, ".gyre", "settings.json"), JSON.stringify({ hooks: entries }));
}

/** An executable script in the project; returns the path to use as a hook command. */
function script(name: string, body: string): string {
  const path = join(cwd, name);
  writeFileSync(path, body);
  chmodSync(path, 0o755);
  return path;
}

/** A hook command that prints this value as JSON on stdout. */
function printsJson(name: string, value: unknown): string {
  const file = join(cwd, `${name}.json`);
  writeFileSync(file, JSON.stringify(value));
  return `cat ${JSON.stringify(file)}`;
}

const MIB = 1024 * 1024;

const target = () => join(cwd, "out.txt");
const touchCall = () => mockTurn.toolUse("Bash", { command: `touch ${JSON.stringify(target())}` });
const writeCall = () => mockTurn.toolUse("Write", { file_path: target(), content: "written" });

async function run(turn: ReturnType<typeof mockTurn.toolUse>, options: QueryOptions = {}) {
  return withMock({ turns: [turn, mockTurn.text("ok")] }, async (server) => {
    const messages = await runQuery(server, format, "go", {
      tools: ["Bash", "Write"],
      cwd,
      settingSources: ["project"],
      permissionMode: "bypassPermissions",
      ...options,
    });
    return { messages, requests: server.requests };
  });
}

/** The failures reported as `hook_response` messages: hook, kind and what the failure did. */
function hookErrors(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "system" && m.subtype === "hook_response" && m.error
      ? [{ hook: m.hook_name, kind: m.error.kind, onFailure: m.error.on_failure, outcome: m.outcome }]
      : [],
  );
}

/** The call was denied: nothing on disk, an error result naming the hook, the failure reported. */
function expectDenied(messages: SDKMessage[], hook: string, why: RegExp, kind: string): void {
  expect(existsSync(target())).toBe(false);
  const [result] = toolResults(messages);
  expect(result?.is_error).toBe(true);
  expect(String(result?.content)).toContain(`PreToolUse hook ${JSON.stringify(hook)} failed`);
  expect(String(result?.content)).toMatch(why);
  expect(hookErrors(messages)).toEqual([expect.objectContaining({ hook, kind })]);
  expect(resultOf(messages).permission_denials).toHaveLength(1);
}

describe("a failed PreToolUse hook denies the call", () => {
  it("reads a deny larger than 1 MiB completely and honours it", async () => {
    const reason = `frozen: ${"r".repeat(1.5 * MIB)}`;
    const hook = printsJson("big-deny", {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: reason,
      },
    });
    settingsHooks({ PreToolUse: [hook] });
    const { messages } = await run(writeCall());
    expect(existsSync(target())).toBe(false);
    const [result] = toolResults(messages);
    expect(result?.is_error).toBe(true);
    expect(String(result?.content).startsWith("frozen: rrr")).toBe(true);
    expect(hookErrors(messages)).toEqual([]);
  });

  it("denies when stdout goes past the limit, without reading it", async () => {
    // 70 MB of a deny that never closes: past the 64 MiB limit, so the hook is stopped.
    const flood = "head -c 70000000 /dev/zero | tr '\\0' r";
    const hook = script("flood.sh", `#!/bin/sh\nprintf '{"decision":"block","reason":"'\n${flood}\nprintf '"}'\n`);
    settingsHooks({ PreToolUse: [hook] });
    const { messages } = await run(writeCall());
    expectDenied(messages, hook, /more than 67108864 bytes on stdout/, "output_too_large");
  });

  it.each([
    ["Write", writeCall],
    ["Bash touch", touchCall],
  ])("denies %s when the hook is killed by a signal", async (_name, call) => {
    settingsHooks({ PreToolUse: ["kill -9 $$"] });
    const { messages } = await run(call());
    expectDenied(messages, "kill -9 $$", /killed by a signal \(SIGKILL\)/, "exit_code");
  });

  it("denies when the hook times out", async () => {
    const hook = { command: "exec sleep 30", timeout: 0.3 };
    settingsHooks({ PreToolUse: [hook] });
    const { messages } = await run(writeCall());
    expectDenied(messages, hook.command, /timed out/, "timeout");
  });

  it("denies when stdout starts like JSON but does not parse", async () => {
    settingsHooks({ PreToolUse: ["echo '{not json'"] });
    const { messages } = await run(writeCall());
    expectDenied(messages, "echo '{not json'", /does not parse/, "invalid_output");
  });

  it("denies when the hook crashes with exit 1", async () => {
    const hook = script("crash.mjs", "#!/usr/bin/env node\nJSON.parse('').tool_input;\n");
    settingsHooks({ PreToolUse: [hook] });
    const { messages } = await run(writeCall());
    expectDenied(messages, hook, /exited with 1: .*SyntaxError/s, "exit_code");
  });

  it('denies when a callback hook under onFailure: "block" throws', async () => {
    const { messages } = await run(writeCall(), { hooks: throwingGuard("block") });
    expectDenied(messages, "callback guard", /policy service unreachable/, "threw");
    expect(hookErrors(messages)).toEqual([expect.objectContaining({ onFailure: "block", outcome: "error" })]);
    expect(String(toolResults(messages)[0]?.content)).toContain('blocks the call (onFailure: "block")');
  });

  it("still allows a call that a hook allows with valid JSON", async () => {
    const hook = printsJson("allow", {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" },
    });
    settingsHooks({ PreToolUse: [hook] });
    // Default mode with no rule and no canUseTool: only the hook's allow lets the Write run.
    const { messages } = await run(writeCall(), { permissionMode: "default" });
    expect(toolResults(messages)[0]?.is_error).toBeFalsy();
    expect(existsSync(target())).toBe(true);
    expect(hookErrors(messages)).toEqual([]);
  });

  it("treats plain text on exit 0 as no decision, as Claude Code does", async () => {
    settingsHooks({ PreToolUse: ["echo 'looks fine to me'"] });
    const { messages } = await run(writeCall());
    expect(existsSync(target())).toBe(true);
    expect(hookErrors(messages)).toEqual([]);
  });
});

/** PreToolUse hooks: one callback that throws, under this `onFailure` (absent: the SDK's default). */
function throwingGuard(onFailure?: "continue" | "block"): QueryOptions["hooks"] {
  // A declaration, not `const guard = async function guard()`: Vite 7's esbuild renames a function
  // expression whose name a binding around it shares (to `guard2`), and hook reports use the name.
  async function guard(): Promise<never> {
    throw new Error("policy service unreachable");
  }
  return { PreToolUse: [{ hooks: [guard], ...(onFailure && { onFailure }) }] };
}

describe('a callback PreToolUse hook that throws under onFailure: "continue" (the SDK\'s default)', () => {
  it.each([["the default", undefined] as const, ['"continue"', "continue"] as const])(
    "is reported, and with %s the permission decision is the one made without it",
    async (_name, onFailure) => {
      // bypassPermissions allows the Write; the failed hook neither allows nor denies it.
      const { messages } = await run(writeCall(), { hooks: throwingGuard(onFailure) });
      expect(existsSync(target())).toBe(true);
      expect(toolResults(messages)[0]?.is_error).toBeFalsy();
      expect(hookErrors(messages)).toEqual([
        { hook: "callback guard", kind: "threw", onFailure: "continue", outcome: "error" },
      ]);
      const report = messages.find((m) => m.type === "system" && m.subtype === "hook_response");
      expect(report).toMatchObject({
        hook_event: "PreToolUse",
        output: expect.stringContaining("policy service unreachable"),
        tool_use_id: expect.any(String),
      });
      expect(resultOf(messages).permission_denials).toEqual([]);
    },
  );

  it("never turns a deny rule into an allow", async () => {
    const { messages } = await run(touchCall(), {
      hooks: throwingGuard("continue"),
      disallowedTools: ["Bash(touch:*)"],
    });
    expect(existsSync(target())).toBe(false);
    expect(toolResults(messages)[0]?.is_error).toBe(true);
    expect(hookErrors(messages)).toEqual([expect.objectContaining({ hook: "callback guard", onFailure: "continue" })]);
    expect(resultOf(messages).permission_denials).toHaveLength(1);
  });

  it("gains a hostile model nothing: input crafted to crash the guard still meets the rules", async () => {
    // The model learns the guard chokes on `&&` and hides a second command behind an allowed prefix.
    const guard = async (input: unknown) => {
      const command = String((input as { tool_input: { command: string } }).tool_input.command);
      if (command.includes("&&")) throw new Error("cannot parse compound commands");
      return {};
    };
    const smuggled = mockTurn.toolUse("Bash", { command: `echo hi && touch ${JSON.stringify(target())}` });
    const { messages } = await run(smuggled, {
      hooks: { PreToolUse: [{ hooks: [guard] }] },
      allowedTools: ["Bash(echo:*)"],
      permissionMode: "dontAsk",
    });
    expect(existsSync(target())).toBe(false);
    expect(toolResults(messages)[0]?.is_error).toBe(true);
    expect(hookErrors(messages)).toEqual([expect.objectContaining({ kind: "threw", onFailure: "continue" })]);
    expect(resultOf(messages).permission_denials).toHaveLength(1);
  });

  it("approves nothing: a call that needs permission still goes to canUseTool", async () => {
    let asked = 0;
    const { messages } = await run(writeCall(), {
      hooks: throwingGuard(),
      permissionMode: "default",
      canUseTool: async () => {
        asked++;
        return { behavior: "deny", message: "not today" };
      },
    });
    expect(asked).toBe(1);
    expect(existsSync(target())).toBe(false);
    expect(toolResults(messages)[0]).toMatchObject({ is_error: true, content: "not today" });
  });
});

describe("a failed PermissionRequest hook never approves", () => {
  const allowHook = () =>
    printsJson("allow-request", {
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });

  it("overrides another hook's allow and denies when no one can be asked", async () => {
    settingsHooks({ PermissionRequest: [allowHook(), "echo '{not json'"] });
    const { messages } = await run(writeCall(), { permissionMode: "default" });
    expect(existsSync(target())).toBe(false);
    const [result] = toolResults(messages);
    expect(result?.is_error).toBe(true);
    expect(String(result?.content)).toContain(`PermissionRequest hook "echo '{not json'" failed`);
    expect(hookErrors(messages)).toEqual([expect.objectContaining({ kind: "invalid_output" })]);
  });

  it("falls through to canUseTool, told of the failure, instead of allowing", async () => {
    settingsHooks({ PermissionRequest: [allowHook(), "kill -9 $$"] });
    const reasons: string[] = [];
    const { messages } = await run(writeCall(), {
      permissionMode: "default",
      canUseTool: async (_name, _input, context) => {
        reasons.push(context.decisionReason ?? "");
        return { behavior: "deny", message: "not today" };
      },
    });
    expect(existsSync(target())).toBe(false);
    expect(reasons).toEqual([expect.stringContaining(`PermissionRequest hook "kill -9 $$" failed`)]);
    expect(toolResults(messages)[0]).toMatchObject({ is_error: true, content: "not today" });
  });

  it("honours a deny larger than 1 MiB without asking canUseTool", async () => {
    const hook = printsJson("big-request-deny", {
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: `no: ${"n".repeat(1.5 * MIB)}` },
      },
    });
    settingsHooks({ PermissionRequest: [hook] });
    let asked = 0;
    const { messages } = await run(writeCall(), {
      permissionMode: "default",
      canUseTool: async () => {
        asked++;
        return { behavior: "allow" };
      },
    });
    expect(asked).toBe(0);
    expect(existsSync(target())).toBe(false);
    const [result] = toolResults(messages);
    expect(result?.is_error).toBe(true);
    expect(String(result?.content).startsWith("no: nnn")).toBe(true);
  });
});

describe("a failed hook on other events does not pass for success", () => {
  it("blocks the prompt when a UserPromptSubmit hook fails", async () => {
    settingsHooks({ UserPromptSubmit: ["echo 'secret scanner crashed' >&2; exit 1"] });
    const { messages, requests } = await run(writeCall());
    expect(requests).toHaveLength(0);
    expect(resultOf(messages)).toMatchObject({
      is_error: true,
      terminal_reason: "hook_stopped",
      errors: [expect.stringContaining("secret scanner crashed")],
    });
  });

  it("tells the model when a PostToolUse hook fails", async () => {
    settingsHooks({ PostToolUse: ["kill -9 $$"] });
    const { messages, requests } = await run(writeCall());
    expect(existsSync(target())).toBe(true);
    expect(JSON.stringify(requests[1]?.body)).toContain('PostToolUse hook \\"kill -9 $$\\" failed');
    expect(hookErrors(messages)).toEqual([expect.objectContaining({ kind: "exit_code" })]);
  });

  it("ends the run as hook_stopped, not success, when a Stop hook fails", async () => {
    settingsHooks({ Stop: [{ command: "exec sleep 30", timeout: 0.3 }] });
    const { messages } = await run(writeCall());
    expect(resultOf(messages)).toMatchObject({
      is_error: true,
      terminal_reason: "hook_stopped",
      errors: [expect.stringContaining('Stop hook "exec sleep 30" failed')],
    });
  });
});
