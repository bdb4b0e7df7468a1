import type { HookEventName } from "./events.js";
import { hookError, type HookErrorKind, type HookRunResult, type HookSource } from "./outcome.js";
import { parseHookOutput, type SyncHookJSONOutput } from "./output.js";
import type { HookCommandExit } from "./run-hook-command.js";

/** Events whose plain (non-JSON) stdout on exit 0 is added to the model's context. */
const PLAIN_STDOUT_IS_CONTEXT = new Set<HookEventName>(["UserPromptSubmit", "SessionStart"]);

/**
 * Translate a command hook's exit into hook JSON output, Claude Code's rules:
 * exit 0 → stdout is the JSON output when it starts with `{` (plain text is context for
 * UserPromptSubmit/SessionStart and ignored elsewhere, as in Claude Code); exit 2 → a
 * blocking error whose stderr is the reason (see `blockingOutput`). Everything else fails
 * the hook: any other exit, a signal, a timeout, an abort, stdout past its limit or
 * unreadable, `{…` that does not parse. What a failure does per event is `aggregate`'s call.
 */
export function interpretCommandExit(event: HookEventName, source: HookSource, exit: HookCommandExit): HookRunResult {
  const fail = (kind: HookErrorKind, message: string): HookRunResult => ({
    ok: false,
    source,
    error: hookError(event, source, kind, message, {
      exitCode: exit.exitCode ?? undefined,
      stderr: exit.stderr.trim() || undefined,
    }),
  });
  if (exit.spawnError) return fail("spawn_failed", `Hook command could not start: ${exit.spawnError}`);
  if (exit.stdoutOverflow !== undefined) {
    return fail(
      "output_too_large",
      `Hook command printed more than ${exit.stdoutOverflow} bytes on stdout (the limit) and was stopped.`,
    );
  }
  if (exit.timedOut) return fail("timeout", `Hook command timed out and was killed: ${source.name}`);
  if (exit.aborted) return fail("aborted", `Hook command was interrupted: ${source.name}`);
  if (exit.readError) return fail("unreadable", `Hook output could not be read: ${exit.readError}`);
  const stderr = exit.stderr.trim() + (exit.stderrTruncated ? " …(cut)" : "");
  if (exit.exitCode === 0) return interpretStdout(event, source, exit.stdout, fail);
  if (exit.exitCode === 2) {
    const output = blockingOutput(event, stderr || `Blocked by hook: ${source.name}`);
    if (output) return { ok: true, source, output };
    return fail("exit_code", `Hook command exited with 2 on ${event}, which cannot block${suffix(stderr)}`);
  }
  const how =
    exit.exitCode === null
      ? `was killed by a signal${exit.signal ? ` (${exit.signal})` : ""}`
      : `exited with ${exit.exitCode}`;
  return fail("exit_code", `Hook command ${how}${suffix(stderr)}`);
}

function interpretStdout(
  event: HookEventName,
  source: HookSource,
  stdout: string,
  fail: (kind: HookErrorKind, message: string) => HookRunResult,
): HookRunResult {
  const text = stdout.trim();
  if (text.startsWith("{")) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return fail("invalid_output", `Hook stdout looks like JSON but does not parse: ${(error as Error).message}`);
    }
    const parsed = parseHookOutput(value);
    return parsed.ok ? { ok: true, source, output: parsed.output } : fail("invalid_output", parsed.message);
  }
  if (text !== "" && PLAIN_STDOUT_IS_CONTEXT.has(event)) {
    const hookEventName = event as "UserPromptSubmit" | "SessionStart";
    return { ok: true, source, output: { hookSpecificOutput: { hookEventName, additionalContext: text } } };
  }
  return { ok: true, source, output: {} };
}

/**
 * What exit 2 means per event, as hook output: PreToolUse denies the call, PermissionRequest
 * denies the permission, UserPromptSubmit/PostToolUse/PostToolUseFailure/Stop/SubagentStop
 * block with stderr as the reason. Other events cannot block (`undefined`).
 */
export function blockingOutput(event: HookEventName, reason: string): SyncHookJSONOutput | undefined {
  switch (event) {
    case "PreToolUse":
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: reason,
        },
      };
    case "PermissionRequest":
      return {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "deny", message: reason },
        },
      };
    case "UserPromptSubmit":
    case "PostToolUse":
    case "PostToolUseFailure":
    case "Stop":
    case "SubagentStop":
      return { decision: "block", reason };
    default:
      return undefined;
  }
}

function suffix(stderr: string): string {
  return stderr ? `: ${stderr.slice(0, 2000)}` : ".";
}
