import type { SDKMessage, ToolUseBlock } from "../protocol/index.js";
import { handoffTarget } from "./handoff-tool.js";
import {
  type GateDecision,
  type NextStep,
  type RunContext,
  type HandoffState,
  stop,
  type ToolBatch,
  type ToolsOutcome,
} from "../loop/index.js";

// The handoff as the tools step (and the resume step) take it: planned before the turn's
// tools run, taken after them. The switch itself is Handoffs.switchTo (handoffs.ts).

/** The turn's handoff, decided before its tools run: which transfer is taken and which are refused. */
export interface HandoffPlan {
  /** The turn's calls, with the refused transfers already answered. */
  batch: ToolBatch;
  call: ToolUseBlock;
  target: string;
  /** The prompt's handoffs are used up: the transfer is refused and the run stops. */
  overLimit: boolean;
}

/**
 * Only the first transfer call of a turn is taken (as in the OpenAI Agents SDK): the others
 * get an `is_error` result without running. The turn's other tools run as usual, in the
 * agent that called them, before the switch. A transfer that waited on an approval is planned
 * again when the run resumes with the answer.
 */
export function planHandoff(context: RunContext, state: HandoffState, batch: ToolBatch): HandoffPlan | undefined {
  const handoffs = context.handoffs;
  if (!handoffs) return undefined;
  const transfers = batch.calls.flatMap((call) => {
    const target = handoffTarget(context.registry.get(call.name));
    return target === undefined ? [] : [{ call, target }];
  });
  const [first, ...others] = transfers;
  if (!first) return undefined;
  const decided = new Map<string, GateDecision>(batch.decided ?? []);
  for (const { call } of others) {
    decided.set(call.id, {
      behavior: "deny",
      denial: false,
      message: `Error: Only the first transfer of a turn counts (${first.call.name}); this ${call.name} was not run.`,
    });
  }
  const { maxHandoffs } = handoffs.init;
  const overLimit = state.counters.handoffs >= maxHandoffs;
  if (overLimit) {
    decided.set(first.call.id, {
      behavior: "deny",
      denial: false,
      stop: "doom_loop",
      message: `Error: The run was already handed over ${maxHandoffs} times for this request; this transfer was not taken.`,
    });
  }
  return { batch: { ...batch, decided }, call: first.call, target: first.target, overLimit };
}

/**
 * After the turn's tools: when its transfer succeeded, the run switches to the target (also
 * when the turn pauses or stops, so that the session goes on as the history says) and the
 * loop goes on as it, after a `system`/`handoff` message.
 */
export async function* takeHandoff(
  context: RunContext,
  state: HandoffState,
  plan: HandoffPlan,
  tools: ToolsOutcome,
  next: NextStep,
): AsyncGenerator<SDKMessage, NextStep> {
  if (plan.overLimit && next.next === "stop" && next.reason === "doom_loop") {
    const times = context.handoffs?.init.maxHandoffs;
    return stop("doom_loop", {
      errors: [`The agents handed the run over ${times} times for one request (maxHandoffs); the run stopped.`],
    });
  }
  const result = tools.results.find((block) => block.tool_use_id === plan.call.id);
  if (!context.handoffs || !result || result.is_error) return next;
  const from = state.activeAgent?.name ?? context.agent?.type ?? "main";
  await context.handoffs.switchTo(state, plan.target);
  state.counters.handoffs++;
  context.tracing?.handedOff(from, plan.target, plan.call.id);
  yield context.stamp.stamp({
    type: "system",
    subtype: "handoff",
    from,
    to: plan.target,
    tool_use_id: plan.call.id,
    model: state.model.id,
    parent_tool_use_id: null,
  });
  return next.next === "continue" ? { next: "handoff", agent: plan.target } : next;
}
