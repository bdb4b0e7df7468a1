import { describe, expect, it } from "vitest";
import { aggregate } from "./aggregate.js";
import type { HookEventName } from "./events.js";
import { hookError, type HookRunResult } from "./outcome.js";
import type { SyncHookJSONOutput } from "./output.js";

let counter = 0;
function ok(output: SyncHookJSONOutput): HookRunResult {
  counter += 1;
  return { ok: true, source: { kind: "callback", name: `callback h${counter}`, onFailure: "block" }, output };
}

function pre(
  specific: Omit<Extract<SyncHookJSONOutput["hookSpecificOutput"], { hookEventName: "PreToolUse" }>, "hookEventName">,
) {
  return ok({ hookSpecificOutput: { hookEventName: "PreToolUse", ...specific } });
}

describe("aggregate", () => {
  it("changes nothing when hooks return nothing", () => {
    const outcome = aggregate("PreToolUse", [ok({}), ok({})]);
    expect(outcome).toEqual({
      event: "PreToolUse",
      hookCount: 2,
      additionalContext: [],
      continue: true,
      suppressOutput: false,
      systemMessages: [],
      errors: [],
      reports: [],
    });
  });

  it("deny beats ask beats allow, with the winners' reasons", () => {
    const allowAsk = aggregate("PreToolUse", [
      pre({ permissionDecision: "allow", permissionDecisionReason: "fine" }),
      pre({ permissionDecision: "ask", permissionDecisionReason: "check with user" }),
    ]);
    expect(allowAsk.permissionDecision).toBe("ask");
    expect(allowAsk.permissionDecisionReason).toBe("check with user");

    const all = aggregate("PreToolUse", [
      pre({ permissionDecision: "deny", permissionDecisionReason: "no rm" }),
      pre({ permissionDecision: "allow", permissionDecisionReason: "fine" }),
      pre({ permissionDecision: "ask" }),
      pre({ permissionDecision: "deny", permissionDecisionReason: "no sudo" }),
    ]);
    expect(all.permissionDecision).toBe("deny");
    expect(all.permissionDecisionReason).toBe("no rm\nno sudo");
  });

  it("maps the legacy top-level decision for PreToolUse", () => {
    expect(aggregate("PreToolUse", [ok({ decision: "approve", reason: "ok" })])).toMatchObject({
      permissionDecision: "allow",
      permissionDecisionReason: "ok",
    });
    const blocked = aggregate("PreToolUse", [ok({ decision: "block", reason: "nope" })]);
    expect(blocked).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "nope" });
    expect(blocked.block).toBeUndefined();
  });

  it("keeps the last updatedInput in configuration order", () => {
    const outcome = aggregate("PreToolUse", [
      pre({ updatedInput: { command: "first" } }),
      pre({ permissionDecision: "allow" }),
      pre({ updatedInput: { command: "last" } }),
      pre({}),
    ]);
    expect(outcome.updatedInput).toEqual({ command: "last" });
  });

  it("concatenates context and system messages; any continue:false stops", () => {
    const outcome = aggregate("PostToolUse", [
      ok({
        systemMessage: "one",
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ctx1" },
      }),
      ok({ continue: false, stopReason: "budget", suppressOutput: true }),
      ok({
        systemMessage: "two",
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ctx2" },
      }),
      ok({ continue: true }),
    ]);
    expect(outcome.additionalContext).toEqual(["ctx1", "ctx2"]);
    expect(outcome.systemMessages).toEqual(["one", "two"]);
    expect(outcome.continue).toBe(false);
    expect(outcome.stopReason).toBe("budget");
    expect(outcome.suppressOutput).toBe(true);
  });

  it("blocks with the reasons joined, and a default reason", () => {
    const outcome = aggregate("Stop", [
      ok({ decision: "block", reason: "tests fail" }),
      ok({ decision: "block", reason: "lint fails" }),
    ]);
    expect(outcome.block).toEqual({ reason: "tests fail\nlint fails" });
    expect(aggregate("Stop", [ok({ decision: "block" })]).block?.reason).toMatch(/Blocked by hook/);
  });

  it("passes updatedMCPToolOutput through for PostToolUse", () => {
    const outcome = aggregate("PostToolUse", [
      ok({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: { redacted: true } } }),
    ]);
    expect(outcome.updatedMCPToolOutput).toEqual({ redacted: true });
  });

  it("reports output for another event as an error and ignores it", () => {
    const outcome = aggregate("PostToolUse", [
      ok({
        continue: false,
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" },
      }),
    ]);
    expect(outcome.continue).toBe(true);
    expect(outcome.permissionDecision).toBeUndefined();
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "invalid_output", event: "PostToolUse" })]);
  });

  describe("a failed hook", () => {
    const failed = (event: HookEventName): HookRunResult => ({
      ok: false,
      source: { kind: "command", name: "./guard.sh", onFailure: "block" },
      error: {
        event,
        hook: "./guard.sh",
        kind: "exit_code",
        message: "Hook command exited with 1: boom",
        onFailure: "block",
      },
    });

    it("denies a PreToolUse call even when another hook allows it, naming the hook and why", () => {
      const outcome = aggregate("PreToolUse", [failed("PreToolUse"), pre({ permissionDecision: "allow" })]);
      expect(outcome.permissionDecision).toBe("deny");
      const why = 'PreToolUse hook "./guard.sh" failed: Hook command exited with 1: boom';
      expect(outcome.permissionDecisionReason).toContain(why);
      expect(outcome.failure).toBe(why);
      expect(outcome.errors).toEqual([expect.objectContaining({ kind: "exit_code", hook: "./guard.sh" })]);
    });

    it("joins its reason with another hook's deny", () => {
      const outcome = aggregate("PreToolUse", [
        pre({ permissionDecision: "deny", permissionDecisionReason: "no rm" }),
        failed("PreToolUse"),
      ]);
      expect(outcome.permissionDecisionReason).toMatch(/^no rm\nPreToolUse hook "\.\/guard\.sh" failed/);
    });

    it("blocks a prompt, and tells the model after a tool ran", () => {
      for (const event of ["UserPromptSubmit", "PostToolUse", "PostToolUseFailure"] as const) {
        const outcome = aggregate(event, [failed(event), ok({})]);
        expect(outcome.block?.reason).toContain(`${event} hook "./guard.sh" failed`);
        expect(outcome.continue).toBe(true);
      }
    });

    it("ends the run from a Stop hook instead of letting it count as success", () => {
      for (const event of ["Stop", "SubagentStop"] as const) {
        const outcome = aggregate(event, [failed(event)]);
        expect(outcome).toMatchObject({ continue: false, stopReason: expect.stringContaining("failed") });
        expect(outcome.block).toBeUndefined();
      }
    });

    it("is only reported on events that cannot block", () => {
      const outcome = aggregate("SessionStart", [failed("SessionStart")]);
      expect(outcome).toMatchObject({ continue: true, failure: expect.stringContaining("./guard.sh") });
      expect(outcome.block).toBeUndefined();
      expect(outcome.permissionDecision).toBeUndefined();
    });

    it("counts output meant for another event as a failure", () => {
      const outcome = aggregate("PreToolUse", [
        ok({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "x" } }),
      ]);
      expect(outcome.permissionDecision).toBe("deny");
    });

    it("caps the hook text and the message that reach the model", () => {
      const long: HookRunResult = {
        ok: false,
        source: { kind: "command", name: "x".repeat(5000), onFailure: "block" },
        error: {
          event: "PreToolUse",
          hook: "x".repeat(5000),
          kind: "exit_code",
          message: "y".repeat(50_000),
          onFailure: "block",
        },
      };
      expect(aggregate("PreToolUse", [long]).failure?.length).toBeLessThan(2100);
    });

    it("leaves no failure when every hook worked", () => {
      expect(aggregate("PreToolUse", [pre({ permissionDecision: "allow" })]).failure).toBeUndefined();
    });

    it("is reported, one report per failed hook, after the messages of hooks before it", () => {
      const outcome = aggregate("PreToolUse", [ok({ systemMessage: "checked" }), failed("PreToolUse")]);
      expect(outcome.reports).toEqual([
        { hook: `callback h${counter}`, systemMessage: "checked" },
        { hook: "./guard.sh", error: expect.objectContaining({ kind: "exit_code", onFailure: "block" }) },
      ]);
    });
  });

  describe('a failed callback with onFailure: "continue"', () => {
    const threw = (event: HookEventName, kind: "threw" | "aborted" = "threw"): HookRunResult => {
      const source = { kind: "callback" as const, name: "callback guard", onFailure: "continue" as const };
      return { ok: false, source, error: hookError(event, source, kind, "Hook callback guard threw: boom") };
    };

    it("decides nothing on PreToolUse: another hook's answer stands, and no hook's answer means none", () => {
      const alone = aggregate("PreToolUse", [threw("PreToolUse")]);
      expect(alone.permissionDecision).toBeUndefined();
      expect(alone.failure).toBeUndefined();
      expect(alone.errors).toEqual([expect.objectContaining({ kind: "threw", onFailure: "continue" })]);
      expect(alone.reports).toEqual([{ hook: "callback guard", error: alone.errors[0] }]);
      const denied = aggregate("PreToolUse", [threw("PreToolUse"), pre({ permissionDecision: "deny" })]);
      expect(denied.permissionDecision).toBe("deny");
      const asked = aggregate("PreToolUse", [threw("PreToolUse"), pre({ permissionDecision: "ask" })]);
      expect(asked.permissionDecision).toBe("ask");
    });

    it("blocks nothing on other events that could block", () => {
      for (const event of ["UserPromptSubmit", "PostToolUse", "PermissionRequest"] as const) {
        const outcome = aggregate(event, [threw(event)]);
        expect(outcome.block).toBeUndefined();
        expect(outcome.failure).toBeUndefined();
        expect(outcome.errors).toHaveLength(1);
      }
    });

    it("still ends the run from a Stop hook (onFailure is ignored there, as in the SDK)", () => {
      const outcome = aggregate("Stop", [threw("Stop")]);
      expect(outcome).toMatchObject({ continue: false, stopReason: expect.stringContaining("boom") });
    });

    it("blocks when the hook was cut short by an interrupt", () => {
      const outcome = aggregate("PreToolUse", [threw("PreToolUse", "aborted")]);
      expect(outcome.errors[0]?.onFailure).toBe("block");
      expect(outcome.permissionDecision).toBe("deny");
    });
  });

  describe("PermissionRequest", () => {
    const request = (
      decision: Extract<SyncHookJSONOutput["hookSpecificOutput"], { hookEventName: "PermissionRequest" }>["decision"],
    ) => ok({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });

    it("deny beats allow and any interrupt interrupts", () => {
      const outcome = aggregate("PermissionRequest", [
        request({ behavior: "allow" }),
        request({ behavior: "deny", message: "not here" }),
        request({ behavior: "deny", interrupt: true }),
      ]);
      expect(outcome.permissionRequest).toEqual({ behavior: "deny", message: "not here", interrupt: true });
    });

    it("ignores every allow when a hook failed, but keeps a deny", () => {
      const failed: HookRunResult = {
        ok: false,
        source: { kind: "callback", name: "callback guard", onFailure: "block" },
        error: {
          event: "PermissionRequest",
          hook: "callback guard",
          kind: "threw",
          message: "threw: x",
          onFailure: "block",
        },
      };
      const allowed = aggregate("PermissionRequest", [
        request({ behavior: "allow", updatedInput: { command: "rm -rf /" } }),
        failed,
      ]);
      expect(allowed.permissionRequest).toBeUndefined();
      expect(allowed.updatedInput).toBeUndefined();
      expect(allowed.failure).toContain("callback guard");
      const denied = aggregate("PermissionRequest", [failed, request({ behavior: "deny", message: "no" })]);
      expect(denied.permissionRequest).toEqual({ behavior: "deny", message: "no" });
    });

    it("allow keeps the last updatedInput and merges updatedPermissions", () => {
      const rule = {
        type: "addRules",
        rules: [{ toolName: "Bash" }],
        behavior: "allow",
        destination: "session",
      };
      const outcome = aggregate("PermissionRequest", [
        request({ behavior: "allow", updatedInput: { command: "a" }, updatedPermissions: [rule] }),
        request({ behavior: "allow", updatedInput: { command: "b" } }),
      ]);
      expect(outcome.permissionRequest).toEqual({
        behavior: "allow",
        updatedInput: { command: "b" },
        updatedPermissions: [rule],
      });
      expect(outcome.updatedInput).toEqual({ command: "b" });
    });
  });
});
