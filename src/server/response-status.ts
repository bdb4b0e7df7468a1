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

/** A run that threw: cancelled when it was aborted, else failed with the error's message. */
export function endResponseOnError(response: ResponseObject, error: unknown, aborted: boolean): void {
  response.status = aborted ? "cancelled" : "failed";
  response.error = aborted
    ? null
    : { code: "server_error", message: error instanceof Error ? error.message : String(error) };
}

/** The stream's last event: how the response ended. */
export function terminalEvent(response: ResponseObject): string {
  if (response.status === "completed") return "response.completed";
  if (response.status === "incomplete") return "response.incomplete";
  return "response.failed";
}
