import { GyreError } from "../../errors/index.js";
import type {
  HistoryEntry,
  PendingToolCall,
  SDKMessage,
  ToolResultBlock,
  ToolUseBlock,
  UserContentBlock,
} from "../../protocol/index.js";
import type { NextStep } from "../next-step.js";
import type { PendingAnswers } from "../pause.js";
import type { RunContext } from "../run-context.js";
import type { RunState } from "../run-state.js";
import { runTools } from "../run-tools.js";
import type { GateDecision } from "../tool-gate.js";
import { afterTools } from "./tools.js";

/**
 * Goes on from a pause: approved calls run (through the same tool step, hooks included),
 * denied ones get their denial, client results are taken as given. All of them join the turn
 * of the paused answer, in call order, and the loop continues with a model call.
 */
export async function* resumeStep(
  context: RunContext,
  state: RunState,
  answers: PendingAnswers,
): AsyncGenerator<SDKMessage, NextStep> {
  state.pending = [];
  const toRun = answers.calls.filter((call) => call.kind === "approval");
  const decided = new Map<string, GateDecision>();
  for (const call of toRun) {
    const tool = context.registry.get(call.name);
    const approval = answers.approvals.get(call.id);
    if (!tool || !approval) continue;
    decided.set(call.id, context.gate.answer(state, tool, call.input, approval));
  }
  return yield* finishOpenTurn(context, state, {
    calls: answers.calls.map(toolUse),
    toRun: toRun.map(toolUse),
    decided,
    given: answers.results,
    rest: answers.rest,
  });
}

/** The calls of a turn left open (a pause, or a process that died while they ran), and how each gets its result. */
export interface OpenTurn {
  /** The open calls, in call order. */
  calls: readonly ToolUseBlock[];
  /** Those that run now: through the gate, unless `decided` already holds their decision. */
  toRun: readonly ToolUseBlock[];
  decided: ReadonlyMap<string, GateDecision>;
  /** Results given for the others, by call id. */
  given: ReadonlyMap<string, ToolResultBlock>;
  /** What follows the results in the same user turn (the rest of a prompt). */
  rest: UserContentBlock[];
}

/**
 * Ends a turn left open: the calls to run run (the same tool step, hooks included), their
 * results and the given ones join the turn of the answer that made the calls, in call order,
 * and the loop goes on as after any tools.
 */
export async function* finishOpenTurn(
  context: RunContext,
  state: RunState,
  turn: OpenTurn,
): AsyncGenerator<SDKMessage, NextStep> {
  const batch = { calls: turn.toRun, toolInputProblems: new Map(), repeatedIds: new Map(), decided: turn.decided };
  const handoff = context.handoffs?.plan(context, state, batch);
  const ran = yield* runTools(context, state, handoff?.batch ?? batch);
  state.denials.push(...ran.denials);
  const byId = new Map([...turn.given, ...ran.results.map((block) => [block.tool_use_id, block] as const)]);
  const results = turn.calls.flatMap((call) => byId.get(call.id) ?? []);
  addResults(state.history, results);
  if (turn.rest.length > 0) state.history.push({ role: "user", content: turn.rest });
  const data = Object.keys(ran.data).length > 0 ? { tool_use_result: ran.data } : {};
  yield context.stamp.user([...results, ...turn.rest], data);
  const next = afterTools(context, state, ran);
  return handoff ? yield* handoff.take(context, state, ran, next) : next;
}

/** Results join the user turn after the answer that made the calls (created if the paused turn had none). */
function addResults(history: HistoryEntry[], results: ToolResultBlock[]): void {
  const index = history.findLastIndex((entry) => entry.role === "assistant");
  const answer = history[index];
  if (answer?.role !== "assistant") throw new GyreError("internal_error", "An open turn has no assistant answer.");
  const order = answer.message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
  const next = history[index + 1];
  if (next?.role === "user" && Array.isArray(next.content) && next.content.every((b) => b.type === "tool_result")) {
    const merged = [...next.content, ...results] as ToolResultBlock[];
    merged.sort((a, b) => order.indexOf(a.tool_use_id) - order.indexOf(b.tool_use_id));
    history[index + 1] = { role: "user", content: merged };
  } else {
    history.splice(index + 1, 0, { role: "user", content: results });
  }
}

function toolUse(call: PendingToolCall): ToolUseBlock {
  return { type: "tool_use", id: call.id, name: call.name, input: call.input };
}
