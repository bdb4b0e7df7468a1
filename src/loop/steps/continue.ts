import { INTERRUPTED_TOOL_RESULT } from "../../sessions/index.js";
import type { APIAssistantMessage, SDKMessage, ToolResultBlock, ToolUseBlock } from "../../protocol/index.js";
import { CONTINUE, type NextStep } from "../next-step.js";
import type { RunContext } from "../run-context.js";
import type { RunState } from "../run-state.js";
import { endTurnStep } from "./end-turn.js";
import { finishOpenTurn } from "./resume.js";

/**
 * Where a run that its process left unfinished stopped (read from its session): what was
 * committed last decides the next step.
 */
export type UnfinishedRun =
  /** The history ends with a prompt or tool results: the model is asked next. */
  | { at: "model" }
  /** The model's last answer made calls without results: they were running when the process died. */
  | { at: "tools"; calls: ToolUseBlock[] }
  /** The model's last answer made no calls: the turn ends on it. */
  | { at: "end_turn"; answer: APIAssistantMessage };

/**
 * The first step of a run taken over from a process that died: a committed answer of the
 * model is never requested again. Calls that were running run again when their tool is
 * idempotent (through the gate, as any call); the others are answered as interrupted, since
 * they may or may not have taken effect.
 */
export async function* continueStep(
  context: RunContext,
  state: RunState,
  unfinished: UnfinishedRun,
): AsyncGenerator<SDKMessage, NextStep> {
  switch (unfinished.at) {
    case "model":
      return CONTINUE;
    case "end_turn":
      return yield* endTurnStep(context, state, {
        message: unfinished.answer,
        calls: [],
        toolInputProblems: new Map(),
        repeatedIds: new Map(),
      });
    case "tools": {
      const { calls } = unfinished;
      const again = (call: ToolUseBlock) => context.registry.get(call.name)?.idempotent === true;
      const given = new Map(calls.filter((call) => !again(call)).map((call) => [call.id, interrupted(call)]));
      return yield* finishOpenTurn(context, state, {
        calls,
        toRun: calls.filter(again),
        decided: new Map(),
        given,
        rest: [],
      });
    }
  }
}

function interrupted(call: ToolUseBlock): ToolResultBlock {
  return { type: "tool_result", tool_use_id: call.id, content: INTERRUPTED_TOOL_RESULT, is_error: true };
}
