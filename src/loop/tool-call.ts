import type { HookRunner } from "../hooks/index.js";
import type { PermissionPolicy } from "../permissions/index.js";
import type { SDKMessage, SDKToolProgressMessage } from "../protocol/index.js";
import {
  type AnyTool,
  callTitle,
  errorResult,
  executeTool,
  type PreparedCall,
  prepareCall,
  type ToolCall,
  type ToolEvent,
  type ToolRegistry,
  type ToolResult,
  type ToolSession,
} from "../tools/index.js";
import type { RunTracing, ToolSpan } from "../telemetry/index.js";
import type { MessageStamp } from "./messages.js";
import { postToolHooks, withNotes } from "./post-tool-hooks.js";
import type { GateDecision, GateState, ToolGate } from "./tool-gate.js";

/** What a call runs with: the tools, the gate and its state, and where the call runs. */
export interface ToolCallEnv {
  readonly registry: ToolRegistry;
  /**
   * Why a call of a tool may not go on before anything checks it: a deferred tool no ToolSearch
   * call loaded (see src/tool-search/). Absent: every tool the registry resolves may be called.
   */
  readonly notLoaded?: (toolName: string) => string | undefined;
  readonly gate: ToolGate;
  /** The rules, mode and repetition streak the gate reads and changes. */
  readonly state: GateState;
  readonly hooks: HookRunner | undefined;
  readonly stamp: MessageStamp;
  /** Files read and background shells, shared by the calls of one run or connection. */
  readonly session: ToolSession;
  readonly cwd: string;
  /** Aborts the call: its tool stops, and PostToolUseFailure hooks hear it was interrupted. */
  readonly signal: AbortSignal;
  /** The time a call may run when its tool sets none of its own. */
  readonly toolTimeoutMs: number | undefined;
  readonly now: () => number;
  /** Where the call's `execute_tool` span goes; none: untraced. */
  readonly tracing?: RunTracing | undefined;
  /** Where a running call's progress and events go; nowhere when absent. */
  readonly observe?: (call: ToolCall, tool: AnyTool) => ToolCallObserver;
}

/** Takes what a call reports while it runs: the loop makes messages of it, `gyre mcp serve` progress notifications. */
export interface ToolCallObserver {
  /** The tool's latest progress report (`reportProgress`, or an emitted `progress` event). */
  progress(data: unknown): void;
  /** Any other event the tool emits: a subagent's message, a sandbox violation, the todo list. */
  event(event: Exclude<ToolEvent, { type: "progress" }>): void;
  /** The tool ended: nothing more is reported. */
  stop(): void;
}

/**
 * Where a call is in its life. `pending` until it runs (also while it waits for the caller:
 * a client-executed tool, a deferred approval); a call that never runs (invalid input, denied)
 * goes straight to `error`, with both times the moment it was refused. `metadata` is the
 * tool's latest progress report while it ran (as OpenCode's tool parts keep theirs).
 */
export type ToolCallState =
  | { status: "pending" }
  | { status: "running"; startedAt: number; metadata?: unknown }
  | { status: "completed" | "error"; startedAt: number; endedAt: number; metadata?: unknown; result: ToolResult };

/** A call that ran: its result as the model sees it, and whether a PostToolUse hook stopped the run. */
export interface ToolCallDone {
  /** With the hooks' notes for the model. */
  result: ToolResult;
  /** The tool's own result, without the notes (what a stop-at tool ends the run with). */
  output: ToolResult;
  stop?: "hook_stopped";
}

type Approved = Extract<GateDecision, { behavior: "allow" }>;

/**
 * One tool call's whole life, the same for a run's calls and `gyre mcp serve`'s: resolve and
 * validate ({@link ToolCallRun.prepare}), the gate — doom loop, PreToolUse hooks, permission
 * policy, asking — ({@link ToolCallRun.check}), then execution with the timeout and abort,
 * PostToolUse or PostToolUseFailure hooks and the result with their notes
 * ({@link ToolCallRun.execute}). The stages are separate so that the loop can check calls in
 * order and run the read-only ones together; {@link runToolCall} runs them back to back.
 *
 * The call's state ({@link ToolCallState}) changes as it goes, and the session records it:
 * the assistant message holds the call (pending), a `tool_progress` message starts it
 * (running), and its `tool_result` ends it (completed or error).
 */
export class ToolCallRun {
  readonly #env: ToolCallEnv;
  readonly call: ToolCall;
  /** What the call is about, in a few words (see `callTitle`). */
  readonly title: string;
  #state: ToolCallState = { status: "pending" };
  #prepared: Extract<PreparedCall, { ok: true }> | undefined;
  readonly #span: ToolSpan | undefined;

  constructor(env: ToolCallEnv, call: ToolCall) {
    this.#env = env;
    this.call = call;
    this.title = callTitle(call.input);
    this.#span = env.tracing?.startTool(call);
  }

  get state(): ToolCallState {
    return this.#state;
  }

  /** Resolve the tool and validate the input; a failure ends the call with a result the model can act on. */
  prepare(): PreparedCall {
    const prepared = prepareCall(this.#env.registry, this.call, this.#env.notLoaded);
    if (prepared.ok) this.#prepared = prepared;
    else this.#end(prepared.result, "invalid_input");
    return prepared;
  }

  /**
   * Whether the call runs (see {@link ToolGate.check}), with the input that runs; `decided`
   * is an answer given before (a deferred approval answered on resume): the gate is not asked
   * again. A denied call ends with the denial's message as its result.
   */
  async *check(decided?: GateDecision): AsyncGenerator<SDKMessage, GateDecision> {
    const { tool, input } = this.#ready();
    const decision = decided ?? (yield* this.#env.gate.check(this.#env.state, tool, this.call, input));
    this.#span?.decided({
      behavior: decision.behavior,
      ...(decision.behavior === "deny" && { reason: decision.message }),
      ...(decision.behavior === "defer" && { reason: decision.reason }),
    });
    if (decision.behavior === "deny") this.#end(errorResult(decision.message), "permission_denied");
    // The run pauses with the call pending: its span ends here, a resumed call's is another.
    if (decision.behavior === "defer") this.#span?.pending();
    return decision;
  }

  /**
   * Run the approved call — timeout, abort, truncation — then the PostToolUse hooks, whose notes
   * join the result. The call is running from here on, and says so first (see {@link started}).
   */
  async *execute(approved: Approved): AsyncGenerator<SDKMessage, ToolCallDone> {
    const { tool } = this.#ready();
    const env = this.#env;
    this.#state = { status: "running", startedAt: env.now() };
    yield started(env.stamp, this.call, tool, this.title, approved.reason);
    const observer = env.observe?.(this.call, tool);
    const report = (data: unknown) => {
      if (this.#state.status === "running") this.#state = { ...this.#state, metadata: data };
      observer?.progress(data);
    };
    let result: ToolResult;
    const run = (fn: () => Promise<ToolResult>) => (this.#span ? this.#span.within(fn) : fn());
    try {
      result = await run(() =>
        executeTool(
          tool,
          approved.input,
          {
            cwd: env.cwd,
            signal: env.signal,
            sessionId: env.session.id,
            toolUseId: this.call.id,
            session: env.session,
            files: {
              ...(approved.path !== undefined && { approvedPath: approved.path }),
              mayRead: (file, found) => env.state.permissions.mayRead(file, tool.name, found),
            },
            reportProgress: report,
            emit: (event) => {
              if (event.type === "progress") return report(event.data);
              if (event.type === "allow_tools") return allowRules(env.state.permissions, event.rules);
              if (event.type === "sandbox_violation") this.#span?.sandboxViolation(event.violations);
              observer?.event(event);
            },
          },
          { timeoutMs: tool.timeoutMs ?? env.toolTimeoutMs },
        ),
      );
    } finally {
      observer?.stop();
    }
    const after = yield* postToolHooks(env, { tool, input: approved.input, call: this.call, result });
    const done: ToolCallDone = {
      result: withNotes(result, [...approved.context, ...after.notes]),
      output: result,
      ...(after.stop && { stop: after.stop }),
    };
    this.#end(done.result);
    return done;
  }

  /** End a call that will not run (nobody can answer what it waits for) with an error result. */
  refuse(message: string): ToolResult {
    const result = errorResult(message);
    this.#end(result, "refused");
    return result;
  }

  #ready(): Extract<PreparedCall, { ok: true }> {
    if (!this.#prepared) throw new Error(`tool call ${this.call.id} was not prepared`);
    return this.#prepared;
  }

  #end(result: ToolResult, why?: string): void {
    this.#span?.end(result, why);
    const endedAt = this.#env.now();
    const ran = this.#state.status === "running" ? this.#state : undefined;
    this.#state = {
      status: result.isError ? "error" : "completed",
      startedAt: ran?.startedAt ?? endedAt,
      endedAt,
      ...(ran?.metadata !== undefined && { metadata: ran.metadata }),
      result,
    };
  }
}

/**
 * The message a call starts running with: `tool_progress` at 0 seconds, titled. Every call that
 * runs sends one, so the session records it `running` while it runs, however short; a call
 * that never runs (invalid, denied, waiting for the caller) sends none. It is a message of the
 * run like any other, so stream-json prints it whatever `includePartialMessages` says: Claude
 * Code sends `tool_progress` only for long shell commands, but a program reading Claude Agent
 * SDK messages takes one at any time. `gyre mcp serve` drops it: its progress notifications
 * carry only what a tool reports.
 */
/** The call's first `tool_progress`: it runs, titled, and (Gyre) why it was allowed to. */
function started(
  stamp: MessageStamp,
  call: ToolCall,
  tool: AnyTool,
  title: string,
  allowedBecause: string | undefined,
): SDKToolProgressMessage {
  return stamp.stamp({
    type: "tool_progress",
    tool_use_id: call.id,
    tool_name: tool.name,
    parent_tool_use_id: null,
    elapsed_time_seconds: 0,
    ...(title !== "" && { title }),
    ...(allowedBecause !== undefined && { permission_reason: allowedBecause }),
  });
}

/**
 * One call from start to end, for a caller with nobody to ask and nothing to pause
 * (`gyre mcp serve`): a call that needs someone's answer is refused.
 */
export async function* runToolCall(env: ToolCallEnv, call: ToolCall): AsyncGenerator<SDKMessage, ToolResult> {
  const run = new ToolCallRun(env, call);
  const prepared = run.prepare();
  if (!prepared.ok) return prepared.result;
  const decision = yield* run.check();
  if (decision.behavior === "deny") return errorResult(decision.message);
  if (decision.behavior === "defer") {
    return run.refuse(`Permission to use ${call.name} is required (${decision.reason}), and no one can be asked.`);
  }
  return (yield* run.execute(decision)).result;
}

/** Adds `rules` (Claude Code syntax) to the session's allow rules; a malformed one is ignored with a warning, as a settings file's is. */
function allowRules(permissions: PermissionPolicy, rules: readonly string[]): void {
  const values = rules.map((rule) => {
    const open = rule.indexOf("(");
    return open < 0 || !rule.endsWith(")")
      ? { toolName: rule }
      : { toolName: rule.slice(0, open).trim(), ruleContent: rule.slice(open + 1, -1) };
  });
  permissions.applyUpdate({ type: "addRules", rules: values, behavior: "allow", destination: "session" });
}
