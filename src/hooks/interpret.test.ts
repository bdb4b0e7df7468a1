import { describe, expect, it } from "vitest";
import type { HookEventName } from "./events.js";
import { interpretCommandExit } from "./interpret.js";
import type { HookCommandExit } from "./run-hook-command.js";

const source = { kind: "command" as const, name: "./hook.sh", onFailure: "block" as const };

function exit(partial: Partial<HookCommandExit>): HookCommandExit {
  return { exitCode: 0, stdout: "", stderr: "", timedOut: false, aborted: false, ...partial };
}

const run = (event: HookEventName, partial: Partial<HookCommandExit>) =>
  interpretCommandExit(event, source, exit(partial));

describe("interpretCommandExit", () => {
  it("parses JSON stdout on exit 0", () => {
    expect(run("PreToolUse", { stdout: '  {"systemMessage":"hi","continue":false}\n' })).toEqual({
      ok: true,
      source,
      output: { systemMessage: "hi", continue: false },
    });
  });

  it("turns plain stdout into context only for UserPromptSubmit and SessionStart", () => {
    expect(run("UserPromptSubmit", { stdout: "today is Monday\n" })).toMatchObject({
      ok: true,
      output: {
        hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "today is Monday" },
      },
    });
    expect(run("SessionStart", { stdout: "branch main" })).toMatchObject({
      output: { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "branch main" } },
    });
    expect(run("PostToolUse", { stdout: "formatted 3 files" })).toEqual({ ok: true, source, output: {} });
  });

  it("reports JSON that does not parse or does not fit the schema", () => {
    expect(run("PreToolUse", { stdout: "{not json" })).toMatchObject({
      ok: false,
      error: { kind: "invalid_output", hook: "./hook.sh", event: "PreToolUse" },
    });
    expect(
      run("PreToolUse", {
        stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}',
      }),
    ).toMatchObject({ ok: false, error: { kind: "invalid_output" } });
  });

  it("maps exit 2 to each event's blocking effect with stderr as the reason", () => {
    expect(run("PreToolUse", { exitCode: 2, stderr: "no rm -rf\n" })).toMatchObject({
      output: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "no rm -rf",
        },
      },
    });
    for (const event of ["PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "UserPromptSubmit"] as const) {
      expect(run(event, { exitCode: 2, stderr: "why" })).toMatchObject({
        ok: true,
        output: { decision: "block", reason: "why" },
      });
    }
    expect(run("PermissionRequest", { exitCode: 2, stderr: "no" })).toMatchObject({
      output: { hookSpecificOutput: { decision: { behavior: "deny", message: "no" } } },
    });
  });

  it("ignores stdout JSON on exit 2", () => {
    expect(run("Stop", { exitCode: 2, stdout: '{"continue":false}', stderr: "keep going" })).toEqual({
      ok: true,
      source,
      output: { decision: "block", reason: "keep going" },
    });
  });

  it("reports exit 2 on events that cannot block", () => {
    expect(run("Notification", { exitCode: 2, stderr: "meh" })).toMatchObject({
      ok: false,
      error: { kind: "exit_code", exitCode: 2, stderr: "meh" },
    });
  });

  it("reports other exits, signals, timeouts, aborts and spawn failures", () => {
    expect(run("PreToolUse", { exitCode: 1, stderr: "oops" })).toMatchObject({
      ok: false,
      error: { kind: "exit_code", exitCode: 1, stderr: "oops", message: expect.stringContaining("oops") },
    });
    expect(run("PreToolUse", { exitCode: null })).toMatchObject({
      error: { kind: "exit_code", message: expect.stringContaining("signal") },
    });
    expect(run("PreToolUse", { exitCode: null, timedOut: true })).toMatchObject({
      error: { kind: "timeout" },
    });
    expect(run("PreToolUse", { exitCode: null, aborted: true })).toMatchObject({
      error: { kind: "aborted" },
    });
    expect(run("PreToolUse", { exitCode: null, spawnError: "ENOENT" })).toMatchObject({
      error: { kind: "spawn_failed" },
    });
  });

  it("fails a hook whose stdout went past the limit, whatever its exit", () => {
    for (const exitCode of [0, 2, null]) {
      expect(run("PreToolUse", { exitCode, stdoutOverflow: 1024 })).toMatchObject({
        ok: false,
        error: { kind: "output_too_large", message: expect.stringContaining("1024 bytes") },
      });
    }
  });

  it("fails a hook whose output could not be read", () => {
    expect(run("PreToolUse", { readError: "EIO" })).toMatchObject({
      ok: false,
      error: { kind: "unreadable", message: expect.stringContaining("EIO") },
    });
  });

  it("names the signal and says when stderr was cut", () => {
    expect(run("PreToolUse", { exitCode: null, signal: "SIGSEGV" })).toMatchObject({
      error: { message: expect.stringContaining("SIGSEGV") },
    });
    expect(run("PreToolUse", { exitCode: 2, stderr: "no", stderrTruncated: true })).toMatchObject({
      ok: true,
      output: { hookSpecificOutput: { permissionDecisionReason: "no …(cut)" } },
    });
  });
});
