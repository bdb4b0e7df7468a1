import type {
  PendingToolCall,
  PermissionDenial,
  SDKMessage,
  TerminalReason,
  ToolResultBlock,
  ToolUseBlock,
} from "../protocol/index.js";
import { type AnyTool, errorResult, executeTool, prepareCall, type ToolCall, type ToolResult } from "../tools/index.js";
import type { ToolInputProblem } from "../model/index.js";
import { AsyncQueue } from "../async/index.js";
import { joinedText } from "./record.js";
import type { RunContext } from "./run-context.js";
import { fromSubagent } from "./subagent-messages.js";
import { hookReports } from "./hook-reports.js";
import type { GateDecision, GateState } from "./tool-gate.js";
import { ToolProgress } from "./tool-progress.js";

/** One answer's tool calls, with what the model boundary found wrong with some of them. */
export interface ToolBatch {
  calls: readonly ToolUseBlock[];
  /** Calls whose arguments were not used, by id: they get an error result instead of running. */
  toolInputProblems: ReadonlyMap<string, ToolInputProblem>;
  /** Calls whose id repeated an earlier call's in the same message: new id → the id the model gave. */
  repeatedIds: ReadonlyMap<string, string>;
  /** Calls already decided (a deferred approval answered on resume): the gate is not asked again. */
  decided?: ReadonlyMap<string, GateDecision>;
}

interface ToolRun {
  context: RunContext;
  state: GateState;
  batch: ToolBatch;
}

export interface ToolsOutcome {
  /** A result for every call, in call order — except the pending ones (unless the run stops). */
  results: ToolResultBlock[];
  /** Calls the caller must answer: client-executed tools, deferred approvals. */
  pending: PendingToolCall[];
  /** Structured results for callers, by tool_use id. */
  data: Record<string, unknown>;
  denials: PermissionDenial[];
  /** A denial, a hook or a loop-control tool asked to end the run after this turn. */
  stop: TerminalReason | undefined;
  /** The final answer (and question) a loop-control or stop-at tool ended the run with. */
  endRun: ToolResult["endRun"];
}

interface Approved {
  index: number;
  call: ToolCall;
  tool: AnyTool;
  input: unknown;
  /** Hook context to hand the model with the result. */
  context: string[];
  /** The real path the permission check judged, for the tool to verify what it opens. */
  path: string | undefined;
}

const CONCURRENT = new Set(["none", "read-only"]);

/**
 * Run one turn's tool calls: resolve, validate, ask permission, then execute — read-only
 * calls concurrently, everything else one at a time in call order. Every call gets a
 * result, in call order, even when the run is interrupted part-way — but for calls that
 * wait on the caller (a client-executed tool, a deferred approval): those are `pending`,
 * the rest of the turn still runs, and they get a result only if the run stops instead.
 */
export async function* runTools(
  context: RunContext,
  state: GateState,
  batch: ToolBatch,
): AsyncGenerator<SDKMessage, ToolsOutcome> {
  const input: ToolRun = { context, state, batch };
  const queue = new AsyncQueue<SDKMessage>();
  const outcome: ToolsOutcome = {
    results: [],
    pending: [],
    data: {},
    denials: [],
    stop: undefined,
    endRun: undefined,
  };
  const results: (ToolResult | undefined)[] = new Array(batch.calls.length);
  const pending: (PendingToolCall | undefined)[] = new Array(batch.calls.length);
  const work = runAll(input, results, pending, outcome, queue).finally(() => queue.close());
  for await (const message of queue) yield message;
  await work;
  // A run that stops does not wait: its pending calls are answered as not run.
  const waits = outcome.stop === undefined && !context.signal.aborted;
  batch.calls.forEach((call, index) => {
    const waiting = pending[index];
    if (waiting && waits) outcome.pending.push(waiting);
    else outcome.results.push(toBlock(call.id, results[index] ?? notRun(context, call)));
  });
  return outcome;
}

async function runAll(
  input: ToolRun,
  results: (ToolResult | undefined)[],
  pending: (PendingToolCall | undefined)[],
  outcome: ToolsOutcome,
  queue: AsyncQueue<SDKMessage>,
): Promise<void> {
  // Concurrent (read-only) calls approved since the last call that runs alone.
  let concurrentCalls: Approved[] = [];
  const flush = async () => {
    const current = concurrentCalls;
    concurrentCalls = [];
    await Promise.all(current.map((approved) => runOne(input, approved, results, outcome, queue)));
  };
  const { context, state, batch } = input;
  for (const [index, block] of batch.calls.entries()) {
    if (context.signal.aborted || outcome.stop) break;
    const repeated = batch.repeatedIds.get(block.id);
    if (repeated !== undefined) {
      results[index] = repeatedIdResult(block, repeated);
      continue;
    }
    const call = toolCall(block, batch.toolInputProblems.get(block.id));
    const prepared = prepareCall(context.registry, call);
    if (!prepared.ok) {
      results[index] = prepared.result;
      continue;
    }
    if (!prepared.tool.execute) {
      pending[index] = { kind: "client_tool", id: call.id, name: call.name, input: prepared.input };
      continue;
    }
    const concurrent = CONCURRENT.has(prepared.tool.sideEffect);
    if (!concurrent) await flush();
    const decision =
      batch.decided?.get(call.id) ??
      (await drain(context.gate.check(state, prepared.tool, call, prepared.input), queue));
    if (decision.behavior === "defer") {
      pending[index] = {
        kind: "approval",
        id: call.id,
        name: call.name,
        input: decision.input,
        reason: decision.reason,
      };
      continue;
    }
    if (decision.behavior === "deny") {
      results[index] = errorResult(decision.message);
      if (decision.denial) {
        outcome.denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
        const denied = {
          tool_use_id: call.id,
          tool_name: call.name,
          tool_input: call.input,
          message: decision.message,
        };
        queue.push(context.stamp.stamp({ type: "system", subtype: "permission_denied", ...denied }));
      }
      if (decision.stop) outcome.stop = decision.stop;
      continue;
    }
    const approved: Approved = {
      index,
      call,
      tool: prepared.tool,
      input: decision.input,
      context: decision.context,
      path: decision.path,
    };
    if (concurrent) {
      concurrentCalls.push(approved);
    } else {
      await runOne(input, approved, results, outcome, queue);
    }
  }
  await flush();
}

async function runOne(
  input: ToolRun,
  approved: Approved,
  results: (ToolResult | undefined)[],
  outcome: ToolsOutcome,
  queue: AsyncQueue<SDKMessage>,
): Promise<void> {
  const { context, state } = input;
  const { call, tool } = approved;
  // Progress only for calls that take a while (see tool-progress.ts), measured on the run's clock.
  const progress = new ToolProgress({
    timers: context.timers,
    now: context.now,
    emit: (elapsedSeconds, data) =>
      queue.push(
        context.stamp.stamp({
          type: "tool_progress",
          tool_use_id: call.id,
          tool_name: tool.name,
          parent_tool_use_id: null,
          elapsed_time_seconds: elapsedSeconds,
          ...(data !== undefined && { data }),
        }),
      ),
  });
  let result: ToolResult;
  try {
    result = await executeTool(
      tool,
      approved.input,
      {
        cwd: context.cwd,
        signal: context.signal,
        sessionId: context.session.id,
        toolUseId: call.id,
        session: context.session,
        files: {
          ...(approved.path !== undefined && { approvedPath: approved.path }),
          mayRead: (file, found) => state.permissions.mayRead(file, tool.name, found),
        },
        reportProgress: (data) => progress.report(data),
        emit: (event) => {
          if (event.type === "progress") progress.report(event.data);
          else if (event.type === "message") queue.push(fromSubagent(event.message, call.id));
          else if (event.type === "sandbox_violation") {
            const { violations } = event;
            queue.push(
              context.stamp.stamp({ type: "system", subtype: "sandbox_violation", tool_use_id: call.id, violations }),
            );
          } else queue.push(context.stamp.stamp({ type: "system", subtype: "todos", todos: event.todos }));
        },
      },
      { timeoutMs: tool.timeoutMs ?? context.limits.toolTimeoutMs },
    );
  } finally {
    progress.stop();
  }
  results[approved.index] = await afterTool(input, approved, result, outcome, queue);
  if (result.data !== undefined) outcome.data[call.id] = result.data;
  noteEndRun(input, tool, result, outcome);
}

function toolCall(block: ToolUseBlock, problem: ToolInputProblem | undefined): ToolCall {
  const call: ToolCall = { id: block.id, name: block.name, input: block.input };
  if (problem?.kind === "invalid_json") call.rawInput = problem.raw;
  if (problem?.kind === "too_large") call.inputTooLarge = { bytes: problem.bytes, limit: problem.limit };
  return call;
}

/** A call that repeated an id is never run: running it twice may be exactly the bug. */
function repeatedIdResult(block: ToolUseBlock, original: string): ToolResult {
  return errorResult(
    `Error: This ${block.name} call was not run: its id ${original} repeated the id of an earlier call in ` +
      `the same response, so it is answered under the id ${block.id}. Every tool call needs its own id; ` +
      "make the call again if it is still needed.",
  );
}

function noteEndRun(input: ToolRun, tool: AnyTool, result: ToolResult, outcome: ToolsOutcome): void {
  if (outcome.endRun || result.isError) return;
  if (result.endRun) {
    outcome.endRun = result.endRun;
    outcome.stop = result.endRun.question ? "question" : "completed";
  } else if (input.context.stopAtTools.has(tool.name)) {
    outcome.endRun = { result: textOf(result) };
    outcome.stop = "tool_stopped";
  }
}

/** PostToolUse / PostToolUseFailure hooks, and hook context, folded into the result. */
async function afterTool(
  input: ToolRun,
  approved: Approved,
  result: ToolResult,
  outcome: ToolsOutcome,
  queue: AsyncQueue<SDKMessage>,
): Promise<ToolResult> {
  const { hooks, signal, stamp } = input.context;
  const notes = [...approved.context];
  const event = result.isError ? "PostToolUseFailure" : "PostToolUse";
  if (hooks?.has(event)) {
    const common = {
      tool_name: approved.tool.name,
      tool_input: approved.input,
      tool_use_id: approved.call.id,
      ...(approved.tool.mcp && { mcp_server: approved.tool.mcp.server }),
    };
    const hookOutcome =
      event === "PostToolUse"
        ? await hooks.run("PostToolUse", { ...common, tool_response: result.data ?? result.content }, { signal })
        : await hooks.run(
            "PostToolUseFailure",
            { ...common, error: textOf(result), is_interrupt: signal.aborted },
            { signal },
          );
    for (const report of hookReports(stamp, hookOutcome)) queue.push(report);
    if (hookOutcome.block) notes.push(hookOutcome.block.reason);
    notes.push(...hookOutcome.additionalContext);
    if (!hookOutcome.continue) outcome.stop = "hook_stopped";
  }
  if (notes.length === 0) return result;
  const extra = notes.map((note) => `<system-reminder>\n${note}\n</system-reminder>`).join("\n");
  if (typeof result.content === "string") return { ...result, content: `${result.content}\n\n${extra}` };
  return { ...result, content: [...result.content, { type: "text", text: extra }] };
}

function textOf(result: ToolResult): string {
  return joinedText(result.content, "\n");
}

function notRun(context: RunContext, call: ToolUseBlock): ToolResult {
  const why = context.signal.aborted ? "the run was interrupted" : "an earlier call was denied and the run stopped";
  return errorResult(`Error: ${call.name} was not run because ${why}.`);
}

function toBlock(toolUseId: string, result: ToolResult): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: toolUseId, content: result.content };
  if (result.isError) block.is_error = true;
  return block;
}

/** Runs a generator to its end, its messages into the queue (which the tool step yields in order). */
async function drain<T>(generator: AsyncGenerator<SDKMessage, T>, queue: AsyncQueue<SDKMessage>): Promise<T> {
  for (;;) {
    const next = await generator.next();
    if (next.done) return next.value;
    queue.push(next.value);
  }
}
