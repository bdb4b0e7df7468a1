import { errorMessage } from "../errors/index.js";
import type { SDKResultMessage } from "../protocol/index.js";
import { CONTEXT_EXCEEDED, contextExceeded } from "./errors.js";
import { type ResponseObject, responseUsage } from "./response-object.js";

/**
 * The run's result as the response's status, usage and error. `upstreamFailure` is why the
 * model failed, when it did: a context window it outgrew fails as `context_length_exceeded`.
 */
export function endResponse(
  response: ResponseObject,
  result: SDKResultMessage | undefined,
  aborted: boolean,
  upstreamFailure: unknown,
  /** What a response waiting on the client's tools ends as (`clientToolStatus`). */
  clientToolStatus: "completed" | "requires_action" = "completed",
): void {
  response.completed_at = Math.floor(Date.now() / 1000);
  if (result) response.usage = responseUsage(result.usage, result.total_cost_usd);
  const reason = result?.terminal_reason;
  if (aborted || reason === "interrupted" || reason === "aborted") {
    response.status = "cancelled";
  } else if (reason === "max_tokens") {
    response.status = "incomplete";
    response.incomplete_details = { reason: "max_output_tokens" };
  } else if (
    reason === "max_turns" ||
    reason === "max_budget" ||
    reason === "doom_loop" ||
    reason === "context_overflow"
  ) {
    response.status = "incomplete";
    response.incomplete_details = { reason };
  } else if (reason === "requires_action" && clientToolStatus === "requires_action" && waitsOnClient(response)) {
    response.status = "requires_action";
  } else if (result && !result.is_error) {
    response.status = "completed";
  } else {
    response.status = "failed";
    response.error = {
      code: reason === "model_error" ? "server_error" : (reason ?? "server_error"),
      message: result?.errors?.join("; ") || "The run failed.",
    };
  }
  if (response.status === "failed" && contextExceeded(upstreamFailure))
    response.error = { code: CONTEXT_EXCEEDED, message: errorMessage(upstreamFailure) };
}

/** Whether the output has calls the client answers: its custom tool calls, function calls the server gave no output. */
function waitsOnClient(response: ResponseObject): boolean {
  const answered = new Set(
    response.output.flatMap((item) => (item.type === "function_call_output" ? [item.call_id] : [])),
  );
  return response.output.some(
    (item) => item.type === "custom_tool_call" || (item.type === "function_call" && !answered.has(item.call_id)),
  );
}

/** A run that threw: cancelled when it was aborted, else failed with the error's message. */
export function endResponseOnError(response: ResponseObject, error: unknown, aborted: boolean): void {
  response.status = aborted ? "cancelled" : "failed";
  response.error = aborted
    ? null
    : { code: "server_error", message: error instanceof Error ? error.message : String(error) };
}

/** Statuses a response does not leave: its run is over (waiting on the client's tools included). */
const ENDED_STATUSES: ReadonlySet<ResponseObject["status"]> = new Set([
  "completed",
  "failed",
  "incomplete",
  "cancelled",
  "requires_action",
]);

/** Whether the response's run is over, however it ended. */
export function hasEnded(response: ResponseObject): boolean {
  return ENDED_STATUSES.has(response.status);
}

/** Whether a stream event of `type` is a last one (what {@link terminalEvent} names). */
export function isTerminalEvent(type: string): boolean {
  return type === "response.completed" || type === "response.incomplete" || type === "response.failed";
}

/** The stream's last event: how the response ended. */
export function terminalEvent(response: ResponseObject): string {
  // Waiting on the client's tools is a run that ended well, whichever status names it.
  if (response.status === "completed" || response.status === "requires_action") return "response.completed";
  if (response.status === "incomplete") return "response.incomplete";
  return "response.failed";
}
