import type { PendingToolCall, SDKMessage, ToolResultBlock, ToolUseBlock } from "../protocol/index.js";
import { type AnyTool, errorResult, type ToolCall, type ToolResult } from "../tools/index.js";
import type { ToolInputProblem } from "../model/index.js";
import { AsyncQueue } from "../async/index.js";
import { callObserver } from "./call-observer.js";
import { joinedText } from "./joined-text.js";
import type { RunContext } from "./run-context.js";
import { type ToolCallEnv, ToolCallRun } from "./tool-call.js";
import type { ToolBatch, ToolsOutcome } from "./tool-batch.js";
import type { GateDecision, GateState } from "./tool-gate.js";
import { notLoaded, type SearchState } from "./tool-search.js";

export type { ToolBatch, ToolsOutcome } from "./tool-batch.js";

interface ToolRun {
  context: RunContext;
  env: ToolCallEnv;
  batch: ToolBatch;
}

interface Approved {
  index: number;
  run: ToolCallRun;
  tool: AnyTool;
  decision: Extract<GateDecision, { behavior: "allow" }>;
}

const CONCURRENT = new Set(["none", "read-only"]);

/**
 * Run one turn's tool calls, each through the tool-call pipeline (tool-call.ts): resolve,
 * validate, ask permission, then execute — read-only
 * calls concurrently, everything else one at a time in call order. Every call gets a
 * result, in call order, even when the run is interrupted part-way — but for calls that
 * wait on the caller (a client-executed tool, a deferred approval): those are `pending`,
 * the rest of the turn still runs, and they get a result only if the run stops instead.
 */
export async function* runTools(
  context: RunContext,
  state: GateState & SearchState,
  batch: ToolBatch,
): AsyncGenerator<SDKMessage, ToolsOutcome> {
  const queue = new AsyncQueue<SDKMessage>();
  const input: ToolRun = { context, env: callEnv(context, state, queue), batch };
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
  const { context, env, batch } = input;
  for (const [index, block] of batch.calls.entries()) {
    if (context.signal.aborted || outcome.stop) break;
    const repeated = batch.repeatedIds.get(block.id);
    if (repeated !== undefined) {
      results[index] = repeatedIdResult(block, repeated);
      continue;
    }
    const run = new ToolCallRun(env, toolCall(block, batch.toolInputProblems.get(block.id)));
    const { call } = run;
    const prepared = run.prepare();
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
    const decision = await drain(run.check(batch.decided?.get(call.id)), queue);
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
    const approved: Approved = { index, run, tool: prepared.tool, decision };
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
  const { call } = approved.run;
  const done = await drain(approved.run.execute(approved.decision), queue);
  results[approved.index] = done.result;
  if (done.stop) outcome.stop = done.stop;
  if (done.output.data !== undefined) outcome.data[call.id] = done.output.data;
  noteEndRun(input, approved.tool, done.output, outcome);
}

/** The tool-call pipeline's view of the run: its tools, gate, state and limits; what calls report goes to `queue`. */
function callEnv(context: RunContext, state: GateState & SearchState, queue: AsyncQueue<SDKMessage>): ToolCallEnv {
  return {
    registry: context.registry,
    ...(context.toolSearch && { notLoaded: (toolName: string) => notLoaded(context, state, toolName) }),
    gate: context.gate,
    state,
    hooks: context.hooks,
    stamp: context.stamp,
    session: context.session,
    cwd: context.cwd,
    signal: context.signal,
    toolTimeoutMs: context.limits.toolTimeoutMs,
    now: context.now,
    tracing: context.tracing,
    observe: (call, tool) => callObserver(context, call, tool, (message) => queue.push(message)),
  };
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
