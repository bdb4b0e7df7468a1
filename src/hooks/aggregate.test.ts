import { describe, expect, it } from "vitest";
import { aggregate } from "./aggregate.js";
import type { HookRunResult } from "./outcome.js";
import type { SyncHookJSONOutput } from "./output.js";

let counter = 0;
function ok(output: SyncHookJSONOutput): HookRunResult {
  counter += 1;
  return { ok: true, source: { kind: "callback", name: `callback h${counter}` }, output };
}

function pre(
  specific: Omit<
    Extract<SyncHookJSONOutput["hookSpecificOutput"], { hookEventName: "PreToolUse" }>,
    "hookEventName"
  >,
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
    expect(outcome.errors).toEqual([
      expect.objectContaining({ kind: "invalid_output", event: "PostToolUse" }),
    ]);
  });

  it("collects failed hooks as errors alongside the others' effects", () => {
    const failed: HookRunResult = {
      ok: false,
      source: { kind: "command", name: "./x.sh" },
      error: {
        event: "PreToolUse",
        hook: "./x.sh",
        kind: "exit_code",
        message: "exited with 1",
        exitCode: 1,
      },
    };
    const outcome = aggregate("PreToolUse", [failed, pre({ permissionDecision: "allow" })]);
    expect(outcome.permissionDecision).toBe("allow");
    expect(outcome.errors).toEqual([failed.error]);
  });

  describe("PermissionRequest", () => {
    const request = (
      decision: Extract<
        SyncHookJSONOutput["hookSpecificOutput"],
        { hookEventName: "PermissionRequest" }
      >["decision"],
    ) => ok({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });

    it("deny beats allow and any interrupt interrupts", () => {
      const outcome = aggregate("PermissionRequest", [
        request({ behavior: "allow" }),
        request({ behavior: "deny", message: "not here" }),
        request({ behavior: "deny", interrupt: true }),
      ]);
      expect(outcome.permissionRequest).toEqual({ behavior: "deny", message: "not here", interrupt: true });
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
