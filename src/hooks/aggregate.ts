import type { HookEventName } from "./events.js";
import { emptyOutcome, type HookOutcome, type HookRunResult, type HookSource } from "./outcome.js";
import type { PermissionDecision, PermissionRequestDecision, SyncHookJSONOutput } from "./output.js";

const RANK: Record<PermissionDecision, number> = { allow: 1, ask: 2, deny: 3 };

interface Collected {
  decisions: Array<{ decision: PermissionDecision; reason?: string }>;
  requests: PermissionRequestDecision[];
  stopReasons: string[];
  blockReasons: string[];
}

/**
 * Combine the results of every hook that ran for one event, in configuration order:
 * deny beats ask beats allow, the last `updatedInput` wins, context and messages are
 * concatenated, any `continue: false` stops, any block blocks.
 */
export function aggregate(event: HookEventName, results: HookRunResult[]): HookOutcome {
  const outcome = emptyOutcome(event);
  outcome.hookCount = results.length;
  const collected: Collected = { decisions: [], requests: [], stopReasons: [], blockReasons: [] };
  for (const result of results) {
    if (!result.ok) {
      outcome.errors.push(result.error);
      continue;
    }
    const specific = result.output.hookSpecificOutput;
    if (specific && specific.hookEventName !== event) {
      outcome.errors.push({
        event,
        hook: result.source.name,
        kind: "invalid_output",
        message: `hookSpecificOutput.hookEventName is "${specific.hookEventName}" but the event is "${event}"; output ignored.`,
      });
      continue;
    }
    applyCommon(outcome, collected, result.output, result.source, event);
    applySpecific(outcome, collected, result.output);
  }
  finish(outcome, collected);
  return outcome;
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
  if (collected.requests.length > 0) {
    outcome.permissionRequest = combineRequests(collected.requests);
    if (outcome.permissionRequest.behavior === "allow" && outcome.permissionRequest.updatedInput) {
      outcome.updatedInput = outcome.permissionRequest.updatedInput;
    }
  }
  if (collected.stopReasons.length > 0) outcome.stopReason = collected.stopReasons.join("\n");
  if (collected.blockReasons.length > 0) outcome.block = { reason: collected.blockReasons.join("\n") };
}

function combineRequests(requests: PermissionRequestDecision[]): PermissionRequestDecision {
  const denies = requests.filter((request) => request.behavior === "deny");
  if (denies.length > 0) {
    const messages = denies.map((deny) => deny.message).filter((message): message is string => !!message);
    return {
      behavior: "deny",
      message: messages.length > 0 ? messages.join("\n") : undefined,
      interrupt: denies.some((deny) => deny.interrupt === true) || undefined,
    };
  }
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
