import type { SDKMessage, TerminalReason } from "../../protocol/index.js";
import { CONTINUE, interrupted, type NextStep, stop } from "../next-step.js";
import { recordUser } from "../record.js";
import type { RunContext } from "../run-context.js";
import type { RunState } from "../run-state.js";
import { type ToolBatch, runTools, type ToolsOutcome } from "../run-tools.js";

const STOP_ERRORS: Partial<Record<TerminalReason, string>> = {
  doom_loop: "The model kept repeating the same tool call, and the repetition was not approved.",
  hook_stopped: "A hook stopped the run.",
  permission_denied: "A tool call was denied and the run was stopped.",
};

/**
 * The answer's tool calls run, their results go back as one user turn; a denial, hook or tool
 * may end the run, calls the caller must answer pause it, and a transfer hands it to another agent.
 */
export async function* toolsStep(
  context: RunContext,
  state: RunState,
  answer: ToolBatch,
): AsyncGenerator<SDKMessage, NextStep> {
  if (answer.calls.length === 0) return CONTINUE;
  const handoff = context.handoffs?.plan(context, state, answer);
  const tools = yield* runTools(context, state, handoff?.batch ?? answer);
  state.denials.push(...tools.denials);
  // With calls pending, only those that ran have results yet; the caller's answers join them on resume.
  if (tools.results.length > 0) yield recordUser(context, state, tools.results, tools.data);
  const next = afterTools(context, state, tools);
  return handoff ? yield* handoff.take(context, state, tools, next) : next;
}

/** What comes after a turn's tools ran: the run was interrupted, a tool or denial ended it, calls wait, or go on. */
export function afterTools(context: RunContext, state: RunState, tools: ToolsOutcome): NextStep {
  if (context.signal.aborted) return interrupted(context.signal);
  if (tools.endRun && tools.stop) {
    return stop(tools.stop, {
      resultText: tools.endRun.result,
      question: tools.endRun.question,
      structuredOutput: tools.endRun.structuredOutput,
    });
  }
  if (tools.stop) return stop(tools.stop, { errors: [STOP_ERRORS[tools.stop] ?? "The run was stopped."] });
  if (tools.pending.length > 0) {
    state.pending = tools.pending;
    return { next: "pause", pending: tools.pending };
  }
  return CONTINUE;
}
