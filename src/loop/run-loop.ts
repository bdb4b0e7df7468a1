import type { SDKMessage } from "../protocol/index.js";
import { CONTINUE, type NextStep } from "./next-step.js";
import { resultMessage } from "./result.js";
import type { RunContext } from "./run-context.js";
import { activeContext, newPromptCounters, type RunState } from "./run-state.js";
import { remindOfBackgroundAgents } from "./steps/background-reminder.js";
import { endTurnStep } from "./steps/end-turn.js";
import { modelTurnStep } from "./steps/model.js";
import { prepareStep } from "./steps/prepare.js";
import { toolsStep } from "./steps/tools.js";

/** A step of the loop: it yields what it produces and says what comes next. */
export type Step = (context: RunContext, state: RunState) => AsyncGenerator<SDKMessage, NextStep>;

/**
 * The agentic loop for one prompt: turns until a step says stop or pause, then the `result`.
 * `first` runs before the turns (resuming a paused run answers its pending calls there). The
 * turns run in the context of the agent the run runs as (`state.activeAgent`); a handoff switches it.
 */
export async function* runLoop(
  context: RunContext,
  state: RunState,
  first?: Step,
): AsyncGenerator<SDKMessage, NextStep> {
  const { background } = context;
  // The top run's stream also carries its background agents' messages (a subagent's go to the same channel).
  if (background && !context.agent) return yield* background.channel.merge(turns(context, state, first));
  return yield* turns(context, state, first);
}

async function* turns(runContext: RunContext, state: RunState, first?: Step): AsyncGenerator<SDKMessage, NextStep> {
  state.counters = newPromptCounters();
  try {
    let context = activeContext(runContext, state);
    let step: NextStep = first ? yield* first(context, state) : CONTINUE;
    for (;;) {
      while (step.next === "continue") step = yield* turn(context, state);
      if (step.next !== "handoff") break;
      context = activeContext(runContext, state);
      step = CONTINUE;
    }
    // Background agents die with the run: stopped before the result, so what they spent is in it.
    await runContext.background?.stopAll();
    if (runContext.snapshots) state.snapshot = await runContext.snapshots.track();
    yield finish(context, state, step);
    return step;
  } finally {
    await runContext.background?.stopAll();
  }
}

/** One turn, top to bottom: prepare, call the model, then run its tools or end the turn. */
export async function* turn(context: RunContext, state: RunState): AsyncGenerator<SDKMessage, NextStep> {
  const prepared = yield* prepareStep(context, state);
  if (prepared.next !== "continue") return prepared;
  const answered = yield* modelTurnStep(context, state);
  if (answered.next !== "answered") return answered;
  const { answer } = answered;
  if (answer.calls.length > 0) return yield* toolsStep(context, state, answer);
  const ended = yield* endTurnStep(context, state, answer);
  return yield* remindOfBackgroundAgents(context, state, ended);
}

/** The run's `result` for how it ended. */
export function finish(
  context: RunContext,
  state: RunState,
  step: Exclude<NextStep, { next: "continue" | "handoff" }>,
) {
  const snapshot = context.snapshots && state.snapshot !== undefined ? { snapshot: state.snapshot } : {};
  if (step.next === "pause") {
    state.exitReason = "requires_action";
    return resultMessage(
      context.stamp,
      state,
      "requires_action",
      { pending: step.pending, ...snapshot },
      context.now(),
    );
  }
  state.exitReason = step.reason;
  return resultMessage(context.stamp, state, step.reason, { ...step, ...snapshot }, context.now());
}
