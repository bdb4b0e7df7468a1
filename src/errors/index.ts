/**
 * Every error Gyre raises is a `GyreError` with a stable string `code`, so callers can
 * branch on `err.code` instead of parsing messages. Wire-level errors (HTTP status, Open
 * Responses error objects) are mapped from these at the edge, never inside the loop.
 */
export type GyreErrorCode =
  | "config_error"
  | "missing_api_key"
  | "unknown_provider"
  | "invalid_model"
  | "model_error"
  | "model_stream_error"
  | "tool_error"
  | "tool_input_invalid"
  | "tool_not_found"
  | "tool_timeout"
  | "tool_aborted"
  | "permission_denied"
  | "hook_error"
  | "aborted"
  | "session_busy"
  | "session_not_found"
  | "session_message_not_found"
  | "session_store_error"
  /** A prompt that resumes a paused run does not answer exactly its pending tool calls; nothing was changed. */
  | "resume_mismatch"
  | "mock_script_error"
  | "context_overflow"
  | "internal_error";

export interface GyreErrorOptions {
  cause?: unknown;
  /** Whether retrying the same operation may succeed (rate limits, overload, cut streams). */
  retryable?: boolean;
  statusCode?: number;
  toolName?: string;
  /** Milliseconds the server asked us to wait before retrying (from `retry-after`). */
  retryAfterMs?: number;
}

export class GyreError extends Error {
  readonly code: GyreErrorCode;
  readonly retryable: boolean;
  readonly statusCode: number | undefined;
  readonly toolName: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: GyreErrorCode, message: string, options: GyreErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "GyreError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.statusCode = options.statusCode;
    this.toolName = options.toolName;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function isGyreError(value: unknown, code?: GyreErrorCode): value is GyreError {
  return value instanceof GyreError && (code === undefined || value.code === code);
}

/** The message of any thrown value, for places that must turn an error into text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** The `code` of a Node system error (`ENOENT`, `ENOSPC`, …), if the value has one. */
export function fsErrorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}
