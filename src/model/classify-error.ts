import { APICallError } from "@ai-sdk/provider";
import { errorMessage, GyreError, type GyreErrorCode } from "../errors/index.js";
import type { APIAssistantMessage } from "../protocol/index.js";
import { ModelCallError } from "./model-call-error.js";
import { isNetworkError, networkMessage } from "./network-error.js";
import { saysPromptTooLong } from "./prompt-too-long.js";
import { retryAfterMs } from "./retry-after.js";

export interface ClassifyContext {
  /** The call's signal had fired: whatever was thrown, the call was interrupted. */
  aborted?: boolean;
  /** What streamed before the failure. */
  partial?: APIAssistantMessage;
}

interface Kind {
  code: GyreErrorCode;
  retryable: boolean;
}

const RATE_LIMITED: Kind = { code: "model_rate_limited", retryable: true };
const OVERLOADED: Kind = { code: "model_overloaded", retryable: true };
const SERVER_ERROR: Kind = { code: "model_server_error", retryable: true };
const AUTH: Kind = { code: "model_auth_error", retryable: false };
const BAD_REQUEST: Kind = { code: "model_bad_request", retryable: false };
const TOO_LONG: Kind = { code: "model_prompt_too_long", retryable: false };

/** Statuses that say "try again" without being a server failure. */
const TRANSIENT_STATUS = new Set([408, 409, 425]);

/** In-stream error types (Anthropic's `error.type`, OpenAI's `type` or `code`). */
const STREAM_ERROR_KINDS: Record<string, Kind> = {
  overloaded_error: OVERLOADED,
  rate_limit_error: RATE_LIMITED,
  rate_limit_exceeded: RATE_LIMITED,
  api_error: SERVER_ERROR,
  server_error: SERVER_ERROR,
  authentication_error: AUTH,
  permission_error: AUTH,
  invalid_request_error: BAD_REQUEST,
  not_found_error: BAD_REQUEST,
  request_too_large: BAD_REQUEST,
};

/**
 * A model-call failure, classified once at the model boundary so that callers only ask
 * `code` and `retryable`: rate limits, overload, server errors, broken connections and cut
 * streams are retryable; a prompt over the context window, rejected credentials and bad
 * requests are not. Already classified errors pass through (gaining `partial`).
 */
export function classifyModelError(error: unknown, context: ClassifyContext = {}): ModelCallError {
  const partial = context.partial ?? (error instanceof ModelCallError ? error.partial : undefined);
  if (context.aborted) {
    if (error instanceof ModelCallError && error.code === "aborted") return withPartial(error, partial);
    return new ModelCallError("aborted", "The model call was interrupted.", { cause: error, partial });
  }
  if (error instanceof GyreError) return withPartial(error, partial);
  if (APICallError.isInstance(error)) return fromApiError(error, partial);
  const part = streamErrorPart(error);
  if (part) {
    const kind = saysPromptTooLong(part.message, part.code) ? TOO_LONG : STREAM_ERROR_KINDS[part.type];
    return new ModelCallError(
      kind?.code ?? "model_stream_error",
      `Model stream error (${part.type}): ${part.message}`,
      {
        cause: error,
        retryable: kind?.retryable ?? false,
        partial,
      },
    );
  }
  if (isNetworkError(error)) {
    return new ModelCallError("model_stream_error", `Connection to the model failed: ${networkMessage(error)}`, {
      cause: error,
      retryable: true,
      partial,
    });
  }
  const code = saysPromptTooLong(errorMessage(error)) ? "model_prompt_too_long" : "model_error";
  return new ModelCallError(code, errorMessage(error), { cause: error, partial });
}

/** The error a stream gets when it ends without its finish part. */
export function streamEndedEarly(): ModelCallError {
  return new ModelCallError("model_stream_error", "The model's stream ended before the response was complete.", {
    retryable: true,
  });
}

function fromApiError(error: APICallError, partial: APIAssistantMessage | undefined): ModelCallError {
  // A 2xx whose body failed part-way is a cut stream, not a rejection: worth another try.
  const status = error.statusCode !== undefined && error.statusCode >= 300 ? error.statusCode : undefined;
  if (status === undefined) {
    return new ModelCallError("model_stream_error", `The model's response broke off: ${networkMessage(error)}`, {
      cause: error,
      retryable: true,
      retryAfterMs: retryAfterMs(error.responseHeaders),
      partial,
    });
  }
  const tooLong =
    (status === 400 || status === 413) &&
    saysPromptTooLong(error.responseBody, error.message, safeStringify(error.data));
  const kind = tooLong ? TOO_LONG : statusKind(status);
  return new ModelCallError(kind.code, `HTTP ${status}: ${error.message}`, {
    cause: error,
    statusCode: status,
    retryable: kind.retryable,
    retryAfterMs: retryAfterMs(error.responseHeaders),
    partial,
  });
}

function statusKind(status: number): Kind {
  if (status === 429) return RATE_LIMITED;
  if (status === 529) return OVERLOADED;
  if (status >= 500) return SERVER_ERROR;
  if (status === 401 || status === 403) return AUTH;
  if (status === 400 || status === 404 || status === 413 || status === 422) return BAD_REQUEST;
  return { code: "model_error", retryable: TRANSIENT_STATUS.has(status) };
}

function withPartial(error: GyreError, partial: APIAssistantMessage | undefined): ModelCallError {
  if (error instanceof ModelCallError && (error.partial || !partial)) return error;
  return new ModelCallError(error.code, error.message, {
    cause: error instanceof ModelCallError ? error.cause : error,
    retryable: error.retryable,
    statusCode: error.statusCode,
    retryAfterMs: error.retryAfterMs,
    partial: (error instanceof ModelCallError && error.partial) || partial,
  });
}

interface StreamErrorPart {
  type: string;
  code: string | undefined;
  message: string;
}

/**
 * An error part's payload: Anthropic sends `{ type: "overloaded_error", message }`, OpenAI's
 * Responses API `{ type: "error", code, message }`, Chat Completions `{ type, code, message }`,
 * sometimes wrapped as `{ error: { … } }`. Errors proper (`Error` instances) are not parts.
 */
function streamErrorPart(error: unknown): StreamErrorPart | undefined {
  if (typeof error !== "object" || error === null || error instanceof Error || !("type" in error)) return undefined;
  const outer = error as { type?: unknown; code?: unknown; message?: unknown; error?: unknown };
  const inner = (typeof outer.error === "object" && outer.error !== null ? outer.error : {}) as typeof outer;
  const code = text(inner.code) ?? text(outer.code);
  const type = text(inner.type) ?? (outer.type === "error" ? undefined : text(outer.type)) ?? code ?? "error";
  return { type, code, message: text(inner.message) ?? text(outer.message) ?? errorMessage(error) };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function safeStringify(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
