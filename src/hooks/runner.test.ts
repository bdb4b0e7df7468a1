import { describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import type { HookCallback } from "./config.js";
import type { HookInput } from "./events.js";
import { HookRunner } from "./runner.js";

const base = { cwd: "/project", sessionId: "sess-1", transcriptPath: "/t/sess-1.jsonl" };

const bashCall = { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1" };

/** A callback that records the inputs it saw. */
function recorder(output: Awaited<ReturnType<HookCallback>> = {}) {
  const seen: Array<{ input: HookInput; toolUseId: string | undefined }> = [];
  const callback: HookCallback = async (input, toolUseId) => {
    seen.push({ input, toolUseId });
    return output;
  };
  return { seen, callback };
}

describe("HookRunner with callbacks", () => {
  it("fills the common fields and passes the tool use id", async () => {
    const hook = recorder();
    const runner = new HookRunner({
      ...base,
      permissionMode: "default",
      callbacks: { PreToolUse: [{ hooks: [hook.callback] }] },
    });
    await runner.run("PreToolUse", bashCall);
    expect(hook.seen).toEqual([
      {
        toolUseId: "toolu_1",
        input: {
          session_id: "sess-1",
          transcript_path: "/t/sess-1.jsonl",
          cwd: "/project",
          permission_mode: "default",
          hook_event_name: "PreToolUse",
          ...bashCall,
        },
      },
    ]);
  });

  it("lets the caller override a common field per run", async () => {
    const hook = recorder();
    const runner = new HookRunner({ ...base, callbacks: { UserPromptSubmit: [{ hooks: [hook.callback] }] } });
    await runner.run("UserPromptSubmit", { prompt: "hi", permission_mode: "plan" });
    expect(hook.seen[0]?.input).toMatchObject({ permission_mode: "plan", prompt: "hi" });
    expect(hook.seen[0]?.toolUseId).toBeUndefined();
  });

  it("runs only the matchers that match the tool name", async () => {
    const bash = recorder();
    const edits = recorder();
    const all = recorder();
    const empty = recorder();
    const regex = recorder();
    const runner = new HookRunner({
      ...base,
      callbacks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [bash.callback] },
          { matcher: "Edit|Write", hooks: [edits.callback] },
          { matcher: "*", hooks: [all.callback] },
          { matcher: "", hooks: [empty.callback] },
          { matcher: "mcp__.*", hooks: [regex.callback] },
        ],
      },
    });
    await runner.run("PreToolUse", bashCall);
    await runner.run("PreToolUse", { ...bashCall, tool_name: "Write" });
    await runner.run("PreToolUse", { ...bashCall, tool_name: "mcp__github__list" });
    const names = (hook: ReturnType<typeof recorder>) =>
      hook.seen.map((seen) => (seen.input as { tool_name: string }).tool_name);
    expect(names(bash)).toEqual(["Bash"]);
    expect(names(edits)).toEqual(["Write"]);
    expect(names(all)).toEqual(["Bash", "Write", "mcp__github__list"]);
    expect(names(empty)).toEqual(["Bash", "Write", "mcp__github__list"]);
    expect(names(regex)).toEqual(["mcp__github__list"]);
  });

  it("matches SessionStart on source and ignores matchers for Stop", async () => {
    const resume = recorder();
    const stop = recorder();
    const runner = new HookRunner({
      ...base,
      callbacks: {
        SessionStart: [{ matcher: "resume", hooks: [resume.callback] }],
        Stop: [{ matcher: "Bash", hooks: [stop.callback] }],
      },
    });
    await runner.run("SessionStart", { source: "startup" });
    await runner.run("SessionStart", { source: "resume" });
    await runner.run("Stop", { stop_hook_active: false });
    expect(resume.seen.map((seen) => (seen.input as { source: string }).source)).toEqual(["resume"]);
    expect(stop.seen).toHaveLength(1);
  });

  it("has() says whether any hook is configured for an event", () => {
    const runner = new HookRunner({ ...base, callbacks: { Stop: [{ hooks: [async () => ({})] }] } });
    expect(runner.has("Stop")).toBe(true);
    expect(runner.has("PreToolUse")).toBe(false);
    expect(new HookRunner(base).has("Stop")).toBe(false);
  });

  it("returns an outcome that changes nothing when no hook matches", async () => {
    const runner = new HookRunner({ ...base, callbacks: { PreToolUse: [{ matcher: "Edit", hooks: [] }] } });
    const outcome = await runner.run("PreToolUse", bashCall);
    expect(outcome).toMatchObject({ hookCount: 0, continue: true, errors: [], additionalContext: [] });
  });

  it("honours every output field", async () => {
    const runner = new HookRunner({
      ...base,
      callbacks: {
        PreToolUse: [
          {
            hooks: [
              async () => ({
                systemMessage: "checked",
                suppressOutput: true,
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  permissionDecision: "allow",
                  permissionDecisionReason: "safe",
                  updatedInput: { command: "ls -la" },
                  additionalContext: "listing is safe",
                },
              }),
            ],
          },
        ],
        UserPromptSubmit: [
          {
            hooks: [
              async () => ({
                decision: "block",
                reason: "no secrets in prompts",
                continue: false,
                stopReason: "policy",
              }),
            ],
          },
        ],
      },
    });
    expect(await runner.run("PreToolUse", bashCall)).toMatchObject({
      hookCount: 1,
      permissionDecision: "allow",
      permissionDecisionReason: "safe",
      updatedInput: { command: "ls -la" },
      additionalContext: ["listing is safe"],
      systemMessages: ["checked"],
      suppressOutput: true,
      continue: true,
      errors: [],
    });
    expect(await runner.run("UserPromptSubmit", { prompt: "my key is x" })).toMatchObject({
      block: { reason: "no secrets in prompts" },
      continue: false,
      stopReason: "policy",
    });
  });

  it("treats a callback that returns nothing or { async: true } as no effect", async () => {
    const runner = new HookRunner({
      ...base,
      callbacks: { PostToolUse: [{ hooks: [async () => {}, async () => ({ async: true as const })] }] },
    });
    const outcome = await runner.run("PostToolUse", { ...bashCall, tool_response: "ok" });
    expect(outcome).toMatchObject({ hookCount: 2, errors: [], continue: true });
  });

  it("runs matching callbacks in parallel", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first waits for the second; run one after the other they would never finish.
    const waiter: HookCallback = async () => {
      await released;
      return { systemMessage: "first" };
    };
    const releaser: HookCallback = async () => {
      release();
      return { systemMessage: "second" };
    };
    const runner = new HookRunner({ ...base, callbacks: { Stop: [{ hooks: [waiter, releaser] }] } });
    const outcome = await runner.run("Stop", { stop_hook_active: false });
    expect(outcome.systemMessages).toEqual(["first", "second"]);
  });

  it("reports a callback that throws, with its name, and keeps the others' effects", async () => {
    const runner = new HookRunner({
      ...base,
      callbacks: {
        PreToolUse: [
          {
            hooks: [
              async function auditLog() {
                throw new Error("disk full");
              },
              () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } }),
            ],
          },
        ],
      },
    });
    const outcome = await runner.run("PreToolUse", bashCall);
    expect(outcome.permissionDecision).toBe("deny");
    expect(outcome.errors).toEqual([
      expect.objectContaining({
        hook: "callback auditLog",
        kind: "threw",
        message: expect.stringContaining("disk full"),
      }),
    ]);
  });

  it('denies a PreToolUse call when a callback under onFailure "block" throws or times out, even if another allows it', async () => {
    const allow: HookCallback = () => ({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" },
    });
    const runner = new HookRunner({
      ...base,
      callbacks: {
        PreToolUse: [
          {
            hooks: [
              allow,
              function guard() {
                throw new TypeError("cannot read properties of undefined");
              },
            ],
            onFailure: "block",
          },
          {
            hooks: [
              async function slow() {
                return new Promise(() => {});
              },
            ],
            timeout: 0.05,
            onFailure: "block",
          },
        ],
      },
    });
    const outcome = await runner.run("PreToolUse", bashCall);
    expect(outcome.permissionDecision).toBe("deny");
    expect(outcome.permissionDecisionReason).toContain('"callback guard" failed');
    expect(outcome.permissionDecisionReason).toContain('"callback slow" failed');
    expect(outcome.errors.map((error) => error.kind)).toEqual(["threw", "timeout"]);
  });

  it('by default (the SDK\'s onFailure: "continue") only reports a callback that throws: it decides nothing', async () => {
    const runner = new HookRunner({
      ...base,
      callbacks: {
        PreToolUse: [
          {
            hooks: [
              function guard() {
                throw new Error("policy service down");
              },
            ],
          },
        ],
      },
    });
    const outcome = await runner.run("PreToolUse", bashCall);
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.failure).toBeUndefined();
    expect(outcome.toolUseId).toBe(bashCall.tool_use_id);
    expect(outcome.reports).toEqual([
      { hook: "callback guard", error: expect.objectContaining({ kind: "threw", onFailure: "continue" }) },
    ]);
  });

  it("rejects an onFailure that is neither continue nor block", () => {
    const callbacks = { PreToolUse: [{ hooks: [() => ({})], onFailure: "allow" }] } as never;
    expect(() => new HookRunner({ ...base, callbacks })).toThrow(/onFailure must be "continue" or "block"/);
  });

  it("reports a callback whose output does not fit the schema", async () => {
    const runner = new HookRunner({
      ...base,
      callbacks: { Stop: [{ hooks: [async () => ({ decision: "maybe" }) as never] }] },
    });
    const outcome = await runner.run("Stop", { stop_hook_active: false });
    expect(outcome.block).toBeUndefined();
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "invalid_output" })]);
  });

  it("times out a callback that never settles, aborting its signal", async () => {
    let sawAbort: Promise<void> = Promise.resolve();
    const stuck: HookCallback = (_input, _id, { signal }) => {
      sawAbort = new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
      return new Promise(() => {});
    };
    const runner = new HookRunner({ ...base, callbacks: { Stop: [{ hooks: [stuck], timeout: 0.05 }] } });
    const outcome = await runner.run("Stop", { stop_hook_active: false });
    await sawAbort;
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "timeout", hook: "callback stuck" })]);
  });

  it("reports callbacks as aborted when the run's signal aborts", async () => {
    const controller = new AbortController();
    const stuck: HookCallback = () => {
      controller.abort();
      return new Promise(() => {});
    };
    const runner = new HookRunner({ ...base, callbacks: { Stop: [{ hooks: [stuck] }] } });
    const outcome = await runner.run("Stop", { stop_hook_active: false }, { signal: controller.signal });
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "aborted" })]);
  });

  it("merges several settings files in order and keeps their warnings", () => {
    const runner = new HookRunner({
      ...base,
      settings: [
        { hooks: { Stop: [{ hooks: [{ type: "command", command: "./user.sh" }] }] } },
        { hooks: { TeammateIdle: [{ hooks: [{ type: "command", command: "./x.sh" }] }] } },
      ],
    });
    expect(runner.has("Stop")).toBe(true);
    expect(runner.warnings).toEqual([expect.stringContaining("settings[1]")]);
  });

  it("does not call callbacks when the run is already aborted", async () => {
    const hook = recorder();
    const runner = new HookRunner({ ...base, callbacks: { Stop: [{ hooks: [hook.callback] }] } });
    const outcome = await runner.run("Stop", { stop_hook_active: false }, { signal: AbortSignal.abort() });
    expect(hook.seen).toEqual([]);
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "aborted" })]);
  });

  it("rejects a bad configuration at construction with config_error", () => {
    for (const options of [
      { callbacks: { PreToolUse: [{ matcher: "Bash(", hooks: [async () => ({})] }] } },
      { settings: { PreToolUse: [{ hooks: [{ type: "command" }] }] } },
    ]) {
      let thrown: unknown;
      try {
        new HookRunner({ ...base, ...options });
      } catch (error) {
        thrown = error;
      }
      expect(isGyreError(thrown, "config_error")).toBe(true);
    }
  });
});
