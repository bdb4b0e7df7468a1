import type { HookRunner } from "../hooks/index.js";
import type { PermissionDenial, SDKMessage, TerminalReason, ToolResultBlock, ToolUseBlock } from "../protocol/index.js";
import {
  type AnyTool,
  errorResult,
  executeTool,
  prepareCall,
  type ToolCall,
  type ToolRegistry,
  type ToolResult,
  type ToolSession,
} from "../tools/index.js";
import type { ToolInputProblem } from "../model/index.js";
import { AsyncQueue } from "./async-queue.js";
import type { MessageStamp } from "./messages.js";
import { reportHookOutcome, type ToolGate } from "./tool-gate.js";

export interface ToolStepInput {
  calls: ToolUseBlock[];
  /** Calls whose arguments were not used, by id: they get an error result instead of running. */
  toolInputProblems: ReadonlyMap<string, ToolInputProblem>;
  /** Calls whose id repeated an earlier call's in the same message: new id → the id the model gave. */
  repeatedIds: ReadonlyMap<string, string>;
  registry: ToolRegistry;
  session: ToolSession;
  cwd: string;
  signal: AbortSignal;
  stamp: MessageStamp;
  gate: ToolGate;
  hooks: HookRunner | undefined;
  toolTimeoutMs: number | undefined;
  /** Tools whose successful call ends the run with their output as the result. */
  stopAtTools: ReadonlySet<string>;
}

export interface ToolStepOutcome {
  results: ToolResultBlock[];
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
}

const CONCURRENT = new Set(["none", "read-only"]);

/**
 * Run one turn's tool calls: resolve, validate, ask permission, then execute — read-only
 * calls concurrently, everything else one at a time in call order. Every call gets a
 * result, in call order, even when the run is interrupted part-way.
 */
export async function* toolStep(input: ToolStepInput): AsyncGenerator<SDKMessage, ToolStepOutcome> {
  const queue = new AsyncQueue<SDKMessage>();
  const outcome: ToolStepOutcome = { results: [], data: {}, denials: [], stop: undefined, endRun: undefined };
  const results: (ToolResult | undefined)[] = new Array(input.calls.length);
  const work = runAll(input, results, outcome, queue).finally(() => queue.close());
  for await (const message of queue) yield message;
  await work;
  outcome.results = input.calls.map((call, index) => toBlock(call.id, results[index] ?? notRun(input, call)));
  return outcome;
}

async function runAll(
  input: ToolStepInput,
  results: (ToolResult | undefined)[],
  outcome: ToolStepOutcome,
  queue: AsyncQueue<SDKMessage>,
): Promise<void> {
  let batch: Approved[] = [];
  const flush = async () => {
    const current = batch;
    batch = [];
    await Promise.all(current.map((approved) => runOne(input, approved, results, outcome, queue)));
  };
  for (const [index, block] of input.calls.entries()) {
    if (input.signal.aborted || outcome.stop) break;
    const repeated = input.repeatedIds.get(block.id);
    if (repeated !== undefined) {
      results[index] = repeatedIdResult(block, repeated);
      continue;
    }
    const call = toolCall(block, input.toolInputProblems.get(block.id));
    const prepared = prepareCall(input.registry, call);
    if (!prepared.ok) {
      results[index] = prepared.result;
      continue;
    }
    const concurrent = CONCURRENT.has(prepared.tool.sideEffect);
    if (!concurrent) await flush();
    const decision = await input.gate.check(prepared.tool, call, prepared.input);
    if (decision.behavior === "deny") {
      results[index] = errorResult(decision.message);
      if (decision.denial) outcome.denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
      if (decision.stop) outcome.stop = decision.stop;
      continue;
    }
    const approved: Approved = {
      index,
      call,
      tool: prepared.tool,
      input: decision.input,
      context: decision.context,
    };
    if (concurrent) {
      batch.push(approved);
    } else {
      await runOne(input, approved, results, outcome, queue);
    }
  }
  await flush();
}

async function runOne(
  input: ToolStepInput,
  approved: Approved,
  results: (ToolResult | undefined)[],
  outcome: ToolStepOutcome,
  queue: AsyncQueue<SDKMessage>,
): Promise<void> {
  const { call, tool } = approved;
  const started = performance.now();
  const progress = (data: unknown) =>
    queue.push(
      input.stamp.stamp({
        type: "tool_progress",
        tool_use_id: call.id,
        tool_name: tool.name,
        parent_tool_use_id: null,
        elapsed_time_seconds: (performance.now() - started) / 1000,
        data,
      }),
    );
  progress(undefined);
  const result = await executeTool(
    tool,
    approved.input,
    {
      cwd: input.cwd,
      signal: input.signal,
      sessionId: input.session.id,
      toolUseId: call.id,
      session: input.session,
      reportProgress: progress,
      emit: (event) => {
        if (event.type === "progress") progress(event.data);
        else queue.push(input.stamp.stamp({ type: "system", subtype: "todos", todos: event.todos }));
      },
    },
    { timeoutMs: tool.timeoutMs ?? input.toolTimeoutMs },
  );
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

function noteEndRun(input: ToolStepInput, tool: AnyTool, result: ToolResult, outcome: ToolStepOutcome): void {
  if (outcome.endRun || result.isError) return;
  if (result.endRun) {
    outcome.endRun = result.endRun;
    outcome.stop = result.endRun.question ? "question" : "completed";
  } else if (input.stopAtTools.has(tool.name)) {
    outcome.endRun = { result: textOf(result) };
    outcome.stop = "tool_stopped";
  }
}

/** PostToolUse / PostToolUseFailure hooks, and hook context, folded into the result. */
async function afterTool(
  input: ToolStepInput,
  approved: Approved,
  result: ToolResult,
  outcome: ToolStepOutcome,
  queue: AsyncQueue<SDKMessage>,
): Promise<ToolResult> {
  const notes = [...approved.context];
  const event = result.isError ? "PostToolUseFailure" : "PostToolUse";
  if (input.hooks?.has(event)) {
    const common = {
      tool_name: approved.tool.name,
      tool_input: approved.input,
      tool_use_id: approved.call.id,
    };
    const hookOutcome =
      event === "PostToolUse"
        ? await input.hooks.run(
            "PostToolUse",
            { ...common, tool_response: result.data ?? result.content },
            { signal: input.signal },
          )
        : await input.hooks.run(
            "PostToolUseFailure",
            { ...common, error: textOf(result), is_interrupt: input.signal.aborted },
            { signal: input.signal },
          );
    const report = reportHookOutcome(input.stamp, hookOutcome);
    if (report) queue.push(report);
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
  if (typeof result.content === "string") return result.content;
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

function notRun(input: ToolStepInput, call: ToolUseBlock): ToolResult {
  const why = input.signal.aborted ? "the run was interrupted" : "an earlier call was denied and the run stopped";
  return errorResult(`Error: ${call.name} was not run because ${why}.`);
}

function toBlock(toolUseId: string, result: ToolResult): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: toolUseId, content: result.content };
  if (result.isError) block.is_error = true;
  return block;
}
