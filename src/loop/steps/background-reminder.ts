import type { SDKMessage } from "../../protocol/index.js";
import { CONTINUE, type NextStep } from "../next-step.js";
import { recordText } from "../record.js";
import type { RunContext } from "../run-context.js";
import type { RunState } from "../run-state.js";

/**
 * The model gave its final answer while background agents it started are still running or
 * have results it has not read: it is told once per agent (a turn more), then may end the
 * run, which stops the running ones. Any other ending (limits, interrupt, errors) is not delayed.
 */
export async function* remindOfBackgroundAgents(
  context: RunContext,
  state: RunState,
  step: NextStep,
): AsyncGenerator<SDKMessage, NextStep> {
  if (step.next !== "stop" || step.reason !== "completed") return step;
  const reminder = context.background?.reminder();
  if (reminder === undefined) return step;
  yield recordText(context, state, reminder);
  return CONTINUE;
}
