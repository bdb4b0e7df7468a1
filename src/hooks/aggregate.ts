import type { HookEventName } from "./events.js";
import {
  emptyOutcome,
  type HookError,
  hookError,
  type HookOutcome,
  type HookRunResult,
  type HookSource,
} from "./outcome.js";
import type { HookPermissionDecision, PermissionRequestDecision, SyncHookJSONOutput } from "./output.js";

// The strictest answer wins: a deferral stops the call for now, only a deny stops it for good.
const RANK: Record<HookPermissionDecision, number> = { allow: 1, ask: 2, defer: 3, deny: 4 };

interface Collected {
  decisions: Array<{ decision: HookPermissionDecision; reason?: string }>;
  requests: PermissionRequestDecision[];
  /** A PermissionRequest hook failed: no hook's allow counts. */
  requestFailed: boolean;
  stopReasons: string[];
  blockReasons: string[];
}

/**
 * Combine the results of every hook that ran for one event, in configuration order:
 * deny beats ask beats allow, the last `updatedInput` wins, context and messages are
 * concatenated, any `continue: false` stops, any block blocks. A failed hook whose
 * `onFailure` is `block` blocks wherever its success could have (see `failClosed`); one whose
 * `onFailure` is `continue` is only reported, as if it had not run.
 */
export function aggregate(event: HookEventName, results: HookRunResult[]): HookOutcome {
  const outcome = emptyOutcome(event);
  outcome.hookCount = results.length;
  const collected: Collected = {
    decisions: [],
    requests: [],
    requestFailed: false,
    stopReasons: [],
    blockReasons: [],
  };
  for (const result of results) {
    if (!result.ok) {
      fail(outcome, result.error);
      continue;
    }
    const specific = result.output.hookSpecificOutput;
    if (specific && specific.hookEventName !== event) {
      const message =
        `hookSpecificOutput.hookEventName is "${specific.hookEventName}" but the event is "${event}": ` +
        "the output is not for this event.";
      fail(outcome, hookError(event, result.source, "invalid_output", message));
      continue;
    }
    if (result.output.systemMessage) {
      outcome.reports.push({ hook: result.source.name, systemMessage: result.output.systemMessage });
    }
    applyCommon(outcome, collected, result.output, result.source, event);
    applySpecific(outcome, collected, result.output);
  }
  failClosed(outcome, collected);
  finish(outcome, collected);
  return outcome;
}

function fail(outcome: HookOutcome, error: HookError): void {
  outcome.errors.push(error);
  outcome.reports.push({ hook: error.hook, error });
}

function applyCommon(
  outcome: HookOutcome,
  collected: Collected,
  output: SyncHookJSONOutput,
  source: HookSource,
  event: HookEventName,
): void {
  if (output.continue === false) {
    outcome.continue = false;
    if (output.stopReason) collected.stopReasons.push(output.stopReason);
  }
  if (output.suppressOutput) outcome.suppressOutput = true;
  if (output.systemMessage) outcome.systemMessages.push(output.systemMessage);
  if (output.decision === undefined) return;
  if (event === "PreToolUse") {
    // Legacy top-level decision: approve = allow, block = deny.
    const decision = output.decision === "approve" ? "allow" : "deny";
    collected.decisions.push({ decision, reason: output.reason });
  } else if (output.decision === "block") {
    collected.blockReasons.push(output.reason || `Blocked by hook: ${source.name}`);
  }
}

function applySpecific(outcome: HookOutcome, collected: Collected, output: SyncHookJSONOutput): void {
  const specific = output.hookSpecificOutput;
  if (!specific) return;
  if ("additionalContext" in specific && specific.additionalContext) {
    outcome.additionalContext.push(specific.additionalContext);
  }
  switch (specific.hookEventName) {
    case "PreToolUse":
      if (specific.permissionDecision) {
        collected.decisions.push({
          decision: specific.permissionDecision,
          reason: specific.permissionDecisionReason,
        });
      }
      if (specific.updatedInput) outcome.updatedInput = specific.updatedInput;
      return;
    case "PostToolUse":
      if (specific.updatedMCPToolOutput !== undefined) {
        outcome.updatedMCPToolOutput = specific.updatedMCPToolOutput;
      }
      return;
    case "PermissionRequest":
      if (specific.decision) collected.requests.push(specific.decision);
      return;
  }
}

/**
 * A hook that failed — threw, crashed, was killed, timed out, was interrupted, could not
 * start, printed more than the limit or output we cannot read — said nothing we can trust,
 * and had it worked it might have blocked. Failures with `onFailure: "block"` (settings-file
 * commands always, callbacks when their matcher says so, any hook cut short by an interrupt)
 * therefore block, by event; `continue` failures are only reported — except on Stop and
 * SubagentStop, where every failure ends the run (the SDK ignores `onFailure` there):
 * - PreToolUse: deny the call. For commands this is stricter than Claude Code, which treats
 *   exit codes other than 0 and 2 (and timeouts) as non-blocking: a guard that crashes on
 *   odd input from the model would otherwise let exactly that input through.
 * - PermissionRequest: no hook's allow counts; a hook's deny still denies; otherwise the
 *   gate goes on to `canUseTool`, or denies when there is none.
 * - UserPromptSubmit: the prompt is blocked (it may be what a filter hook exists to stop).
 * - PostToolUse / PostToolUseFailure: the tool has run; the model is told the hook failed.
 * - Stop / SubagentStop: the run stops as `hook_stopped`, not as a success. Blocking would
 *   send the model back to work on a failure it cannot fix.
 * - Other events cannot block: the failure is only reported.
 */
function failClosed(outcome: HookOutcome, collected: Collected): void {
  const always = outcome.event === "Stop" || outcome.event === "SubagentStop";
  const blocking = outcome.errors.filter((error) => always || error.onFailure === "block");
  if (blocking.length === 0) return;
  const failure = blocking.map(describeFailure).join("\n");
  outcome.failure = failure;
  switch (outcome.event) {
    case "PreToolUse":
      collected.decisions.push({
        decision: "deny",
        reason: `${failure}\nA PreToolUse hook that fails blocks the call (onFailure: "block"), so it was not run.`,
      });
      return;
    case "PermissionRequest":
      collected.requestFailed = true;
      return;
    case "UserPromptSubmit":
    case "PostToolUse":
    case "PostToolUseFailure":
      collected.blockReasons.push(failure);
      return;
    case "Stop":
    case "SubagentStop":
      outcome.continue = false;
      collected.stopReasons.push(failure);
      return;
    default:
      return;
  }
}

const MAX_FAILURE_TEXT = 2000;

/** One line naming a failed hook and why; hook text and message are capped (they reach the model). */
function describeFailure(error: HookError): string {
  const hook = error.hook.length > 200 ? `${error.hook.slice(0, 200)}…` : error.hook;
  const text = `${error.event} hook ${JSON.stringify(hook)} failed: ${error.message}`;
  return text.length > MAX_FAILURE_TEXT ? `${text.slice(0, MAX_FAILURE_TEXT)}…` : text;
}

function finish(outcome: HookOutcome, collected: Collected): void {
  if (collected.decisions.length > 0) {
    const winner = collected.decisions.reduce((best, next) =>
      RANK[next.decision] > RANK[best.decision] ? next : best,
    ).decision;
    outcome.permissionDecision = winner;
    const reasons = collected.decisions
      .filter((entry) => entry.decision === winner && entry.reason)
      .map((entry) => entry.reason as string);
    if (reasons.length > 0) outcome.permissionDecisionReason = reasons.join("\n");
  }
  const request = combineRequests(collected.requests, collected.requestFailed);
  if (request) {
    outcome.permissionRequest = request;
    if (request.behavior === "allow" && request.updatedInput) outcome.updatedInput = request.updatedInput;
  }
  if (collected.stopReasons.length > 0) outcome.stopReason = collected.stopReasons.join("\n");
  if (collected.blockReasons.length > 0) outcome.block = { reason: collected.blockReasons.join("\n") };
}

function combineRequests(
  requests: PermissionRequestDecision[],
  failed: boolean,
): PermissionRequestDecision | undefined {
  if (requests.length === 0) return undefined;
  const denies = requests.filter((request) => request.behavior === "deny");
  if (denies.length > 0) {
    const messages = denies.map((deny) => deny.message).filter((message): message is string => !!message);
    return {
      behavior: "deny",
      message: messages.length > 0 ? messages.join("\n") : undefined,
      interrupt: denies.some((deny) => deny.interrupt === true) || undefined,
    };
  }
  if (failed) return undefined;
  let updatedInput: Record<string, unknown> | undefined;
  const updatedPermissions: unknown[] = [];
  for (const request of requests) {
    if (request.behavior !== "allow") continue;
    if (request.updatedInput) updatedInput = request.updatedInput;
    if (request.updatedPermissions) updatedPermissions.push(...request.updatedPermissions);
  }
  return {
    behavior: "allow",
    updatedInput,
    updatedPermissions: updatedPermissions.length > 0 ? updatedPermissions : undefined,
  };
}
