import { errorMessage, GyreError, isGyreError } from "../errors/index.js";

/** The error types of OpenAI's error object, by HTTP status. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  404: "not_found_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};

/** A request the server refuses: a `request_error` with its HTTP status, wire code and `param`. */
export class RequestError extends GyreError {
  constructor(
    statusCode: number,
    message: string,
    readonly wireCode: string | null = null,
    readonly param: string | null = null,
    cause?: unknown,
  ) {
    super("request_error", message, { statusCode, cause });
  }

  /** The error object's `type`: by default the one OpenAI gives the status. */
  get wireType(): string {
    return ERROR_TYPES[this.statusCode ?? 400] ?? "invalid_request_error";
  }
}

/**
 * A model the server does not serve, as OpenAI answers it: a 404 of type `invalid_request_error`,
 * `code: "model_not_found"`, `param: "model"`. `reason` says why (not listed, no provider or key for it).
 */
export class ModelNotFoundError extends RequestError {
  constructor(model: string, reason: string, cause?: unknown) {
    super(404, `The model '${model}' does not exist or is not served here: ${reason}`, MODEL_NOT_FOUND, "model", cause);
  }

  override get wireType(): string {
    return "invalid_request_error";
  }
}

/**
 * An error another process answered with, relayed as it was (a queued response's upstream
 * failure, from the worker that ran it to the instance that answers the client).
 */
export class RelayedError extends RequestError {
  constructor(
    status: number,
    readonly body: ErrorBody,
  ) {
    super(status, body.error.message, body.error.code, body.error.param);
  }

  override get wireType(): string {
    return this.body.error.type;
  }
}

/**
 * A 503: what the server needs (the cluster's queue, the store) cannot be reached just now;
 * the client is told when to try again (`Retry-After`, whole seconds).
 */
export class UnavailableError extends RequestError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    cause?: unknown,
  ) {
    super(503, message, "service_unavailable", null, cause);
  }

  override get wireType(): string {
    return "server_error";
  }
}

/** How long a client waits before trying again when the queue or the store is out of reach. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * The error a request answers with: the store failing (PostgreSQL out of reach, mostly) is a
 * 503 to retry, not a 500; anything else as it is.
 */
export function asRequestError(error: unknown): unknown {
  if (isGyreError(error) && error.code === "session_store_error" && !(error instanceof RequestError))
    return new UnavailableError(
      `The store cannot be used just now: ${errorMessage(error)}`,
      UNAVAILABLE_RETRY_SECONDS,
      error,
    );
  return error;
}

/** OpenAI's error code for a model it does not have. */
export const MODEL_NOT_FOUND = "model_not_found";

/** Model resolution's own errors: what the server cannot serve, not what failed. */
const UNSERVABLE = new Set(["invalid_model", "unknown_provider", "missing_api_key", "config_error"]);

/** A model resolution failure as {@link ModelNotFoundError}; any other error as it is. */
export function asModelNotFound(model: string, error: unknown): unknown {
  if (!isGyreError(error) || !UNSERVABLE.has(error.code)) return error;
  return new ModelNotFoundError(model, errorMessage(error), error);
}

/** The spec's (and OpenAI's) error body: `{ error: { message, type, param, code } }`. */
export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Maps any thrown value to an HTTP status and error body, in one place at the edge. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof RequestError) {
    const status = error.statusCode ?? 400;
    return {
      status,
      body: {
        error: {
          message: error.message,
          type: error.wireType,
          param: error.param,
          code: error.wireCode,
        },
      },
    };
  }
  if (contextExceeded(error)) {
    // The upstream's context window: the client's input is too long, as OpenAI answers it.
    const error_ = {
      message: errorMessage(error),
      type: "invalid_request_error",
      param: "input",
      code: CONTEXT_EXCEEDED,
    };
    return { status: 400, body: { error: error_ } };
  }
  const status = upstreamStatus(error);
  return {
    status,
    body: {
      error: {
        message: errorMessage(error),
        type: status >= 500 ? "server_error" : "invalid_request_error",
        param: null,
        code: isGyreError(error) ? error.code : null,
      },
    },
  };
}

/** OpenAI's error code for an input over the model's context window. */
export const CONTEXT_EXCEEDED = "context_length_exceeded";

/** Whether the upstream refused the request as too long for the model's context window. */
export function contextExceeded(error: unknown): boolean {
  return isGyreError(error) && error.code === "model_prompt_too_long";
}

/** Model resolution problems are the client's (400); upstream failures 502/503; anything else 500. */
function upstreamStatus(error: unknown): number {
  if (!isGyreError(error)) return 500;
  switch (error.code) {
    case "invalid_model":
    case "unknown_provider":
    case "missing_api_key":
    case "config_error":
    case "resume_mismatch":
      return 400;
    case "model_rate_limited":
    case "model_overloaded":
      return 503;
    case "model_error":
    case "model_stream_error":
    case "model_server_error":
    case "model_auth_error":
    case "model_bad_request":
      return 502;
    default:
      return 500;
  }
}
