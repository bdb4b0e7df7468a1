import type { SDKMessage } from "../../protocol/index.js";
import { compactIfNeeded } from "./compact.js";
import { checkLimits } from "../limits.js";
import type { NextStep } from "../next-step.js";
import type { RunContext } from "../run-context.js";
import type { RunState } from "../run-state.js";

/** Before the model call: limits (abort, budget, turns), then compaction if asked for or due. */
export async function* prepareStep(context: RunContext, state: RunState): AsyncGenerator<SDKMessage, NextStep> {
  const limited = checkLimits(context, state);
  if (limited.next !== "continue") return limited;
  return yield* compactIfNeeded(context, state);
}
