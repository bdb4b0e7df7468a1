/**
 * Every error Gyre raises is a `GyreError` with a stable string `code`, so callers can
 * branch on `err.code` instead of parsing messages. Wire-level errors (HTTP status, Open
 * Responses error objects) are mapped from these at the edge, never inside the loop.
 */
export type GyreErrorCode =
  /**
   * An option, argument or file that configures Gyre is invalid: `query()` options, a
   * settings file, its hooks or a hook matcher, a tool definition (`defineTool`), an
   * `outputFormat` schema, the trusted-folders file, a CLI flag; or what it asks for cannot
   * be set up (the trusted-folders file cannot be written, the mock LLM cannot listen).
   */
  | "config_error"
  /** `resolveModel`: the provider needs an API key and neither its variable nor `apiKey` is set. */
  | "missing_api_key"
  /** `resolveModel`: the part before the `/` names no built-in or configured provider. */
  | "unknown_provider"
  /**
   * `resolveModel`: the model is neither a `"provider/model-id"` string nor a bare id of a
   * family with one provider (`claude-…`, `gpt-…`, `gemini-…`); an ambiguous bare id lists
   * the `provider/` forms to choose from.
   */
  | "invalid_model"
  /**
   * A run has a dollar budget (`maxBudgetUsd`) but a model it may use has no known price, so
   * the budget could not be kept: give the price with `pricing`, or limit tokens with
   * `maxBudgetTokens`. Raised before the first request (or by `setModel`).
   */
  | "unpriced_model"
  /**
   * A model call failed in a way no more specific `model_*` code covers: an HTTP status
   * without its own code, an error thrown by the provider package. `retryable` is set for
   * 408, 409 and 425.
   */
  | "model_error"
  /**
   * The connection to the model failed or its stream broke off (a reset, a cut body, a
   * stream that ended without finishing), or the stream carried an error part of an unknown
   * type. Retryable, except for the unknown error parts.
   */
  | "model_stream_error"
  /** The provider rate-limited the call (HTTP 429, `rate_limit_error`). Retryable, with `retryAfterMs` when sent. */
  | "model_rate_limited"
  /** The provider is overloaded (HTTP 529, Anthropic's `overloaded_error`). Retryable. */
  | "model_overloaded"
  /** The provider failed (HTTP 5xx other than 529, an in-stream `api_error`/`server_error`). Retryable. */
  | "model_server_error"
  /**
   * The request does not fit the model's context window (Anthropic "prompt is too long",
   * OpenAI `context_length_exceeded`). The loop compacts once and sends it again.
   */
  | "model_prompt_too_long"
  /** The provider rejected the credentials or their permissions (HTTP 401, 403). */
  | "model_auth_error"
  /** The provider rejected the request as malformed or for an unknown model (HTTP 400, 404, 413, 422). */
  | "model_bad_request"
  /**
   * A built-in tool failed (a missing file, an edit that does not match, a failed atomic
   * write, a bad search root, a path that changed while Read, Write or Edit opened it). The
   * loop shows it to the model as an `is_error` result.
   */
  | "tool_error"
  /** The reason a tool call's signal aborts when the call runs past its timeout. */
  | "tool_timeout"
  /**
   * An MCP server (`mcpServers`) could not be started or connected, or did not list its tools.
   * The run goes on without it: the `system`/`init` message reports it with status `failed`.
   */
  | "mcp_connection_failed"
  /**
   * An MCP server asks for OAuth authorization and no usable tokens are stored (none, or the
   * refresh token was refused), or the caller's `authProvider` did not authorize. The run goes
   * on without it: `system`/`init` reports it with status `needs-auth`; `gyre mcp auth` logs in.
   */
  | "mcp_needs_auth"
  /**
   * Authorizing with an MCP server's OAuth authorization server failed (`gyre mcp auth`): the
   * redirect did not come back in time, the person or the server refused, or the code could not
   * be exchanged for tokens.
   */
  | "mcp_auth_failed"
  /**
   * A call to an MCP server's tool failed: the transport broke, the server crashed, or it
   * answered with a protocol error. The message names the server and the tool; the loop shows
   * it to the model as an `is_error` result.
   */
  | "mcp_tool_error"
  /**
   * A tool of an MCP server that is unavailable was called: the server is disabled
   * (`toggleMcpServer`), or failed and is not restarted or reconnected again in this run.
   * The message names the server and says why.
   */
  | "mcp_server_unavailable"
  /**
   * `gyre serve` refused to connect to an `mcp` tool's server for a client: its name resolves
   * to no address the server may reach (this machine's own, loopback, private, link-local…,
   * or one outside `mcpAllowedHosts`), or it redirected there. The listing reports it.
   */
  | "mcp_url_refused"
  /**
   * The run asked for the OS sandbox (`sandbox.enabled`, `gyre run --sandbox`) and it cannot
   * start: no bubblewrap (or socat, for allowed network domains), no user namespaces, not
   * Linux. Raised before any tool runs; the message says what to install or change. A run
   * never falls back to running commands unsandboxed.
   */
  | "sandbox_unavailable"
  /** A callback that feeds the run failed: the system prompt's `retrieveContext`. */
  | "hook_error"
  /**
   * Work stopped because the run was interrupted or ended: the reason of the run's abort
   * signal (`interrupt()`, the end of the query) and of an interrupted compaction.
   */
  | "aborted"
  /** A session store: another process or server instance holds the session's lock. */
  | "session_busy"
  /** A session store or the session admin functions: no session has that id. */
  | "session_not_found"
  /** A session store: the session has no message with that uuid (`upTo`, `resumeSessionAt`). */
  | "session_message_not_found"
  /** A session store cannot read or write its storage, or finds data it cannot read. */
  | "session_store_error"
  /** A workspace snapshot (the `snapshots` option) could not be taken, compared or restored: git failed or is missing. */
  | "snapshot_error"
  /**
   * An optional peer dependency the feature needs is not installed (`pg` for
   * `openPostgresSessionStore`); the message names the package to install.
   */
  | "missing_dependency"
  /** A message of a streamed prompt is not a user message (`{ type: "user", message: { role, content } }`). */
  | "invalid_prompt"
  /** A prompt that resumes a paused run does not answer exactly its pending tool calls; nothing was changed. */
  | "resume_mismatch"
  /** The mock LLM (`gyre/testing`): its script is invalid or cannot be read. */
  | "mock_script_error"
  /** Compaction could not bring the history under the context window. */
  | "context_overflow"
  /**
   * `gyre serve` refused a request: invalid (400, with the offending `param`: an unknown field
   * or tool type, a wrong value), unknown id (404), a model it cannot serve (404
   * `model_not_found`), no valid API key (401), body too large (413). `statusCode` holds the HTTP status.
   */
  | "request_error"
  /** The job queue (Redis, `--queue`) cannot be reached or refused a command; the message says where. */
  | "queue_unavailable"
  /**
   * A queued response's job cannot be run: its payload does not parse (another version of Gyre
   * queued it), or it was started more times than `maxStarts` allows. Its response fails with this.
   */
  | "invalid_job"
  /** A state Gyre's own code should never reach (a bug), reported instead of crashing. */
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
