import { setTimeout as delay } from "node:timers/promises";
import {
  type CallToolResult,
  type CompatibilityCallToolResult,
  ErrorCode,
  McpError,
  type Tool as McpToolInfo,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, GyreError, isGyreError } from "../errors/index.js";
import type { McpServerConfig, McpServerStatus } from "./config.js";
import { type ConnectOptions, connectServer, listAllTools, type McpConnection } from "./connect.js";
import type { McpCallOptions } from "./mcp-tool.js";
import { traceFields } from "./trace-propagation.js";

/** Restarts (stdio, in-process) or reconnects (HTTP, SSE) of one server after a lost connection, per run. */
export const MAX_RECOVERIES = 3;
/** Waits between the connection attempts of one HTTP or SSE reconnect (so three attempts). */
const RECONNECT_BACKOFF_MS = [250, 1000];
/** How long a server whose call timed out has to answer a ping before it counts as hung. */
const PING_TIMEOUT_MS = 5000;
/** setTimeout's largest delay: the MCP SDK's own 60 s request timeout must not cut long tools short. */
const NO_REQUEST_TIMEOUT = 2_147_483_647;

type State =
  | { status: "pending"; connecting: Promise<void> }
  | { status: "connected"; connection: McpConnection }
  /** `needsAuth`: failed because the server wants OAuth authorization first (status `needs-auth`). */
  | { status: "failed"; error: string; recoverable: boolean; needsAuth?: boolean }
  | { status: "disabled" };

export interface LiveServerOptions extends ConnectOptions {
  /** Called whenever the server's status or its tool list changed. */
  onChange: (server: LiveServer) => void;
}

/**
 * One MCP server of a run, kept live: connected, watched for a lost connection and for
 * `notifications/tools/list_changed`, restarted or reconnected (bounded) at the next call
 * after it was lost, reconnected or turned off on request. Nothing here throws into the
 * loop but a tool call's own error.
 */
export class LiveServer {
  readonly name: string;
  /** An `Error` for a config-file server that could not be resolved: it fails with it, every time. */
  readonly config: McpServerConfig | Error;
  readonly #options: LiveServerOptions;
  #state: State = { status: "failed", error: "not started", recoverable: false };
  #tools: McpToolInfo[] = [];
  #serverInfo: { name: string; version: string } | undefined;
  /** Whether the model is offered the tools: from the first connection until the server is given up. */
  #offering = false;
  #recoveries = 0;
  /** Bumped by every new connection and every close: callbacks of an older connection are ignored. */
  #generation = 0;
  #closed = false;
  #refreshing: Promise<void> = Promise.resolve();
  #probing: Promise<void> = Promise.resolve();
  #recovering: Promise<void> | undefined;
  /** The last connection's close (a stdio server may take seconds to exit). */
  #closing: Promise<void> = Promise.resolve();

  constructor(name: string, config: McpServerConfig | Error, options: LiveServerOptions) {
    this.name = name;
    this.config = config;
    this.#options = options;
  }

  /** The client of the current connection; undefined while not connected. */
  get client(): McpConnection["client"] | undefined {
    return this.#state.status === "connected" ? this.#state.connection.client : undefined;
  }

  /** The per-call timeout of the server's config. */
  get timeoutMs(): number | undefined {
    return this.config instanceof Error ? undefined : this.config.timeout;
  }

  /** The tools to offer the model (none while it is not usable and will not be restarted). */
  get tools(): readonly McpToolInfo[] {
    return this.#offering ? this.#tools : [];
  }

  /** Every tool the server ever listed in this run, for the calls the model makes from memory. */
  get knownTools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /** Disabled, or failed for good: its tools answer with {@link LiveServer.unavailableError}. */
  get unavailable(): boolean {
    return !this.#offering;
  }

  status(): McpServerStatus {
    const state = this.#state;
    return {
      name: this.name,
      status: state.status === "failed" && state.needsAuth ? "needs-auth" : state.status,
      ...(state.status === "connected" && this.#serverInfo && { serverInfo: this.#serverInfo }),
      ...(state.status === "failed" && { error: state.error }),
    };
  }

  /** Connects (again); settles when connected or failed, never rejects. */
  connect(): Promise<void> {
    const generation = this.#closeConnection();
    // Started after the state is `pending`, so an attempt that fails at once ends `failed`.
    const connecting = Promise.resolve().then(() => this.#attempt(generation));
    this.#setState({ status: "pending", connecting });
    return connecting;
  }

  /** Closes and connects again, with a fresh restart budget; rejects when the new connection failed. */
  async reconnect(): Promise<void> {
    this.#assertOpen();
    this.#recoveries = 0;
    await this.connect();
    const state = this.#state;
    if (state.status === "failed") throw new GyreError("mcp_connection_failed", state.error);
  }

  /** Off: the connection is closed (a stdio server ends) and its tools are withdrawn. On: connects again. */
  async setEnabled(enabled: boolean): Promise<void> {
    this.#assertOpen();
    if (!enabled) {
      this.#closeConnection();
      this.#offering = false;
      this.#setState({ status: "disabled" });
      return;
    }
    if (this.#state.status !== "disabled") return;
    this.#recoveries = 0;
    await this.connect();
  }

  /** Calls one of the server's tools, restarting or reconnecting it first when it was lost. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    options: McpCallOptions = {},
  ): Promise<CallToolResult | CompatibilityCallToolResult> {
    const connection = await this.#usable(signal);
    // The MCP SDK never removes the abort listener it adds to a request's signal: a signal of
    // the call's own keeps the run's signal from collecting one per call (and Node's warning).
    const call = new AbortController();
    const forward = () => call.abort(signal.reason);
    signal.addEventListener("abort", forward, { once: true });
    if (signal.aborted) forward();
    try {
      const meta = traceFields();
      const params = { name: tool, arguments: args, ...(meta && { _meta: meta }) };
      const result = await connection.client.callTool(params, undefined, {
        ...options,
        signal: call.signal,
        timeout: options.timeout ?? NO_REQUEST_TIMEOUT,
      });
      // A list_changed the call caused arrived before its answer: the new list is in before the next model call.
      await this.#refreshing;
      return result;
    } catch (error) {
      // Aborted, or the call's own timeout fired: the server may be hung; a ping tells.
      if (signal.aborted || isRequestTimeout(error)) {
        if (!this.#options.signal.aborted) this.#probing = this.#probe(connection);
      } else if (!answeredWithError(error)) {
        this.#lost(connection, `the connection broke (${errorMessage(error)})`);
        // The reason the connection was lost (a crash, garbage on stdout) says more than "Connection closed".
        const reason = this.#state.status === "failed" ? this.#state.error : errorMessage(error);
        throw new GyreError(
          "mcp_tool_error",
          `MCP server "${this.name}": tool "${tool}" failed: ${reason}. The server's connection is lost; ${this.#nextStep()}`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      signal.removeEventListener("abort", forward);
    }
  }

  /** The error for a call to a tool of this server while it is unavailable. */
  unavailableError(): GyreError {
    const state = this.#state;
    const why = this.#closed
      ? "the run has ended"
      : state.status === "disabled"
        ? "it is disabled"
        : state.status === "failed"
          ? state.error
          : "it is not connected";
    return new GyreError("mcp_server_unavailable", `MCP server "${this.name}" is unavailable: ${why}`);
  }

  /** Ends the connection for good (the run is over). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#offering = false;
    const state = this.#state;
    this.#generation++;
    if (state.status === "connected") await state.connection.close();
    if (state.status === "pending") await state.connecting;
    await this.#closing; // A lost connection's process, still ending, ends with the run too.
  }

  async #attempt(generation: number): Promise<void> {
    try {
      // An in-process server instance takes one connection at a time: the old one must be closed first.
      const config = this.config;
      if (config instanceof Error) throw config;
      if (config.type === "sdk") await this.#closing;
      const connection = await connectServer(this.name, config, this.#options);
      if (generation !== this.#generation) return void (await connection.close());
      this.#watch(connection, generation);
      this.#tools = connection.tools;
      const info = connection.client.getServerVersion();
      this.#serverInfo = info && { name: info.name, version: info.version };
      this.#offering = true;
      this.#setState({ status: "connected", connection });
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#offering = false;
      const needsAuth = isGyreError(error) && error.code === "mcp_needs_auth";
      this.#setState({ status: "failed", error: errorMessage(error), recoverable: false, needsAuth });
    }
  }

  #watch(connection: McpConnection, generation: number): void {
    const current = () => generation === this.#generation;
    connection.client.onclose = () => {
      if (current()) this.#lost(connection, "the server closed its connection (it exited?)");
    };
    connection.client.onerror = (error) => {
      // A line on stdout that is not JSON-RPC: the server cannot be trusted to answer (a call waiting
      // for its answer would wait forever). Lines before the handshake ended are skipped, as the SDK does.
      if (current() && (error instanceof SyntaxError || error.name === "ZodError"))
        this.#lost(connection, `the server wrote something that is not JSON-RPC (${errorMessage(error)})`);
    };
    connection.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.#refreshing = listAllTools(connection.client, { signal: this.#options.signal }).then(
        (tools) => {
          if (!current()) return;
          this.#tools = tools;
          this.#options.onChange(this);
        },
        () => {}, // The old list stays: a server that cannot list its tools fails its next call.
      );
    });
  }

  /** After a call timed out: a server that does not answer a ping either is hung, and handled as lost. */
  async #probe(connection: McpConnection): Promise<void> {
    try {
      // Half the server's call timeout at most: the next call waits for this verdict within its own timeout.
      const timeout = Math.min(PING_TIMEOUT_MS, (this.timeoutMs ?? Number.POSITIVE_INFINITY) / 2);
      await connection.client.ping({ signal: this.#options.signal, timeout });
    } catch (error) {
      if (this.#state.status === "connected" && this.#state.connection === connection)
        this.#lost(connection, `the server stopped answering (${errorMessage(error)})`);
    }
  }

  #lost(connection: McpConnection, reason: string): void {
    const state = this.#state;
    if (state.status !== "connected" || state.connection !== connection) return;
    this.#closeConnection();
    const recoverable = this.#recoveries < MAX_RECOVERIES;
    if (!recoverable) this.#offering = false;
    const error = recoverable ? reason : `${reason}; gave up after ${MAX_RECOVERIES} ${this.#recoveryWord()}s`;
    this.#setState({ status: "failed", error, recoverable });
  }

  /** The connection to call through: waits for a pending one, recovers a lost one (once at a time). */
  async #usable(signal: AbortSignal): Promise<McpConnection> {
    this.#assertOpen();
    await this.#probing;
    if (this.#state.status === "pending") await this.#state.connecting;
    if (this.#state.status === "failed" && this.#state.recoverable) {
      this.#recovering ??= this.#recover(signal).finally(() => (this.#recovering = undefined));
      await this.#recovering;
    }
    const state = this.#state;
    if (state.status === "connected") return state.connection;
    throw this.unavailableError();
  }

  async #recover(signal: AbortSignal): Promise<void> {
    this.#recoveries++;
    const waits = this.#isRemote() ? RECONNECT_BACKOFF_MS : [];
    for (let attempt = 0; ; attempt++) {
      await this.connect();
      const wait = waits[attempt];
      if (this.#state.status !== "failed" || wait === undefined || signal.aborted) break;
      await delay(wait, undefined, { signal }).catch(() => {});
    }
    const state = this.#state;
    if (state.status !== "failed") return;
    // Its tools stay offered while another recovery may bring it back.
    const recoverable = this.#recoveries < MAX_RECOVERIES;
    this.#offering = recoverable;
    const attempts = waits.length > 0 ? ` (${waits.length + 1} attempts)` : "";
    const note = `${this.#recoveryWord()} ${this.#recoveries} of ${MAX_RECOVERIES} failed${attempts}`;
    this.#setState({
      status: "failed",
      error: `${state.error}; ${note}${recoverable ? "" : "; gave up"}`,
      recoverable,
    });
  }

  #nextStep(): string {
    const state = this.#state;
    if (state.status !== "failed" || !state.recoverable) return "it is unavailable for the rest of this run.";
    return this.#isRemote() ? "it is reconnected at the next call." : "it is restarted at the next call.";
  }

  #recoveryWord(): string {
    return this.#isRemote() ? "reconnect" : "restart";
  }

  #isRemote(): boolean {
    return !(this.config instanceof Error) && (this.config.type === "http" || this.config.type === "sse");
  }

  /** Closes the current connection, if any, and returns the generation of the next one. */
  #closeConnection(): number {
    const state = this.#state;
    if (state.status === "connected") this.#closing = state.connection.close();
    return ++this.#generation;
  }

  #setState(state: State): void {
    this.#state = state;
    this.#options.onChange(this);
  }

  #assertOpen(): void {
    if (this.#closed) throw this.unavailableError();
  }
}

/** The server answered the call with a JSON-RPC error: it is alive. Anything else means the connection broke. */
function isRequestTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

function answeredWithError(error: unknown): boolean {
  return (
    error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout
  );
}
