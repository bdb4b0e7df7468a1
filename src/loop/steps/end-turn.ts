import type { SDKMessage, SDKNoToolCallMessage } from "../../protocol/index.js";
import { CONTINUE, type NextStep, stop } from "../next-step.js";
import { joinedText } from "../joined-text.js";
import { recordText } from "../record.js";
import type { RunContext } from "../run-context.js";
import type { RunState, TurnAnswer } from "../run-state.js";
import { hookReports } from "../hook-reports.js";

const TOOL_REMINDER =
  "You answered without calling a tool. Call task_completion when the task is done, ask_question when you need " +
  "the person's input, converse to reply to them, or another tool to keep working.";

const STRUCTURED_OUTPUT_REMINDER =
  "You must give your final answer by calling the StructuredOutput tool with input that matches its schema. " +
  "Call it now.";

const CONTINUE_PROMPT =
  "Your previous response was cut off because it reached the maximum output length. Continue exactly where you left off.";

/**
 * The model answered without tool calls: decide by its stop reason whether the run is done.
 * A paused turn (`pause_turn`) is sent back to continue; a cut answer is continued, a missing StructuredOutput or (with loop-control tools) a
 * missing tool call is asked for, each a bounded number of times; Stop hooks have the last word.
 */
export async function* endTurnStep(
  context: RunContext,
  state: RunState,
  answer: TurnAnswer,
): AsyncGenerator<SDKMessage, NextStep> {
  const { limits } = context;
  const { counters } = state;
  switch (answer.message.stop_reason) {
    case "max_tokens":
      if (counters.maxTokensContinuations >= limits.maxTokensContinuations) {
        return stop("max_tokens", { errors: [outputLimitError(limits.maxTokensContinuations)] });
      }
      counters.maxTokensContinuations++;
      yield recordText(context, state, CONTINUE_PROMPT);
      return CONTINUE;
    case "refusal":
      return stop("refusal");
    case "pause_turn":
      // Anthropic paused a long turn (server tools, compaction): the paused answer, already in
      // the history, goes back as it is and the model carries on; no user message is added.
      // Each continuation is a model call, so maxTurns bounds them.
      return CONTINUE;
  }
  if (context.structuredOutput) {
    if (counters.structuredOutputReminders >= limits.maxStructuredOutputRetries) {
      return stop("structured_output_missing", {
        errors: [
          `The model ended ${counters.structuredOutputReminders + 1} times without a valid StructuredOutput call.`,
        ],
      });
    }
    counters.structuredOutputReminders++;
    yield noToolCall(
      context,
      state,
      STRUCTURED_OUTPUT_REMINDER,
      counters.structuredOutputReminders,
      limits.maxStructuredOutputRetries,
    );
    yield recordText(context, state, STRUCTURED_OUTPUT_REMINDER);
    return CONTINUE;
  }
  if (context.loopControl && counters.toolReminders < limits.maxToolReminders) {
    counters.toolReminders++;
    yield noToolCall(context, state, TOOL_REMINDER, counters.toolReminders, limits.maxToolReminders);
    yield recordText(context, state, TOOL_REMINDER);
    return CONTINUE;
  }
  return yield* stopHooks(context, state);
}

/**
 * Stop hooks (SubagentStop hooks for a subagent) may keep the agent going (bounded), with their
 * reason as the next prompt.
 */
async function* stopHooks(context: RunContext, state: RunState): AsyncGenerator<SDKMessage, NextStep> {
  const { hooks, agent } = context;
  const event = agent ? "SubagentStop" : "Stop";
  const runs = state.counters.stopHookContinuations;
  if (!hooks?.has(event) || runs >= context.limits.maxStopHookContinuations) return stop("completed");
  const common = { stop_hook_active: runs > 0, last_assistant_message: joinedText(state.lastAssistant?.content) };
  const outcome = agent
    ? await hooks.run(
        "SubagentStop",
        { ...common, agent_id: agent.id, agent_type: agent.type },
        { signal: context.signal },
      )
    : await hooks.run("Stop", common, { signal: context.signal });
  yield* hookReports(context.stamp, outcome);
  if (!outcome.continue)
    return stop("hook_stopped", { errors: [outcome.stopReason ?? `A ${event} hook ended the run.`] });
  if (!outcome.block) return stop("completed");
  state.counters.stopHookContinuations++;
  yield recordText(context, state, outcome.block.reason);
  return CONTINUE;
}

/** Why a run ended at the output limit: cut once with no continuations allowed, or too many times in a row. */
function outputLimitError(continuations: number): string {
  if (continuations === 0)
    return "The model reached its output limit; the answer is incomplete (cut answers are not continued: maxTokensContinuations is 0).";
  return `The model reached its output limit ${continuations + 1} times in a row; the answer is incomplete.`;
}

/** The `system/no_tool_call` event of a reminder about to be sent. */
function noToolCall(
  context: RunContext,
  state: RunState,
  reminder: string,
  attempt: number,
  maxAttempts: number,
): SDKNoToolCallMessage {
  return context.stamp.stamp({
    type: "system",
    subtype: "no_tool_call",
    turn: state.turns,
    reminder,
    attempt,
    max_attempts: maxAttempts,
  });
}
