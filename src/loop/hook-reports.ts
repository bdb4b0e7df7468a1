import type { HookError, HookOutcome, HookReport } from "../hooks/index.js";
import type { SDKHookResponseMessage } from "../protocol/index.js";
import type { MessageStamp } from "./messages.js";

/** A failed command's stderr kept in its report (the rest is in `error.message`'s excerpt or dropped). */
const MAX_REPORTED_STDERR = 4000;

/**
 * What hooks had to tell the caller, as `system`/`hook_response` messages: one per hook that
 * failed (whether its failure blocked or not) or gave a `systemMessage`, in configuration
 * order. These go to the caller only, never to the model.
 * `toolUseId` names the call when the event's input does not (PermissionRequest, Notification).
 */
export function hookReports(
  stamp: MessageStamp,
  outcome: HookOutcome,
  toolUseId = outcome.toolUseId,
): SDKHookResponseMessage[] {
  return outcome.reports.map((report) => hookResponse(stamp, outcome.event, report, toolUseId));
}

function hookResponse(
  stamp: MessageStamp,
  event: string,
  report: HookReport,
  toolUseId: string | undefined,
): SDKHookResponseMessage {
  const { error } = report;
  return stamp.stamp({
    type: "system",
    subtype: "hook_response",
    hook_id: stamp.newId(),
    hook_name: report.hook,
    hook_event: event,
    output: error ? error.message : (report.systemMessage ?? ""),
    stdout: "",
    stderr: error?.stderr?.slice(0, MAX_REPORTED_STDERR) ?? "",
    ...(error?.exitCode !== undefined && { exit_code: error.exitCode }),
    outcome: !error ? "success" : error.kind === "aborted" ? "cancelled" : "error",
    ...(toolUseId !== undefined && { tool_use_id: toolUseId }),
    ...(report.systemMessage !== undefined && { system_message: report.systemMessage }),
    ...(error && { error: errorField(error) }),
  });
}

function errorField(
  error: Pick<HookError, "kind" | "message" | "onFailure">,
): NonNullable<SDKHookResponseMessage["error"]> {
  return { kind: error.kind, message: error.message, on_failure: error.onFailure };
}

/**
 * A `canUseTool` callback that threw, reported as a failed hook is (`hook_name` and
 * `hook_event` both `canUseTool`). The call it was asked about is denied: the failure blocks.
 */
export function canUseToolFailure(stamp: MessageStamp, toolUseId: string, message: string): SDKHookResponseMessage {
  return stamp.stamp({
    type: "system",
    subtype: "hook_response",
    hook_id: stamp.newId(),
    hook_name: "canUseTool",
    hook_event: "canUseTool",
    output: message,
    stdout: "",
    stderr: "",
    outcome: "error",
    tool_use_id: toolUseId,
    error: errorField({ kind: "threw", message, onFailure: "block" }),
  });
}
