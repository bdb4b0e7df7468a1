import type { SDKMessage, TerminalReason } from "../protocol/index.js";
import { compact, compactIfNeeded } from "./compact-step.js";
import { checkBudget, checkLimits } from "./limits.js";
import type { LoopConfig, LoopState, NextStep } from "./loop-state.js";
import { callModel } from "./model-call.js";
import { finalText, recordAssistant, recordUser, toolUses, unanswered } from "./record.js";
import { resultMessage } from "./result.js";
import { reportHookOutcome } from "./tool-gate.js";
import { toolStep } from "./tool-step.js";
import { uniqueToolUseIds } from "./tool-use-ids.js";

export { type LoopConfig, type LoopState, newLoopState } from "./loop-state.js";

const STOP_ERRORS: Partial<Record<TerminalReason, string>> = {
  doom_loop: "The model kept repeating the same tool call, and the repetition was not approved.",
  hook_stopped: "A hook stopped the run.",
  permission_denied: "A tool call was denied and the run was stopped.",
};

const TOOL_REMINDER =
  "You answered without calling a tool. Call task_completion when the task is done, ask_question when you need " +
  "the person's input, converse to reply to them, or another tool to keep working.";

const STRUCTURED_OUTPUT_REMINDER =
  "You must give your final answer by calling the StructuredOutput tool with input that matches its schema. " +
  "Call it now.";

const CONTINUE_PROMPT =
  "Your previous response was cut off because it reached the maximum output length. Continue exactly where you left off.";

/**
 * The agentic loop: call the model, run the tools it asks for, feed the results back,
 * until the model is done or a limit stops it. Each turn is a step that says what
 * happens next; this function only wires them and emits the final result.
 */
export async function* runLoop(config: LoopConfig, state: LoopState): AsyncGenerator<SDKMessage, void> {
  let continuations = 0;
  let stopHookRuns = 0;
  let reminders = 0;
  let outputReminders = 0;
  let step: NextStep = { next: "continue" };
  while (step.next === "continue") {
    step = checkLimits(config, state);
    if (step.next === "stop") break;
    step = yield* turn(config, state, () => continuations++);
  }
  state.exitReason = step.reason;
  yield resultMessage(config.stamp, state, step.reason, step);

  async function* turn(
    cfg: LoopConfig,
    st: LoopState,
    countContinuation: () => number,
  ): AsyncGenerator<SDKMessage, NextStep> {
    const compacted = yield* compactIfNeeded(cfg, st);
    if (compacted.next === "stop") return compacted;
    // The model this call goes to: Query.setModel during the call applies to the next one.
    let model = cfg.model;
    let outcome = yield* callModel(cfg, st, model);
    if (outcome.kind === "failed" && cfg.compactor && outcome.error.code === "model_prompt_too_long") {
      // The provider counted more than we estimated: compact once and try again.
      const retried = yield* compact(cfg, st, "auto", undefined, true);
      if (retried.next === "stop") return retried;
      model = cfg.model;
      outcome = yield* callModel(cfg, st, model);
    }
    const fallback = cfg.fallbackModel;
    if (outcome.kind === "failed" && fallback && model !== fallback) {
      // Failed for good, retries included: the rest of the run uses the fallback model.
      yield cfg.stamp.stamp({
        type: "system",
        subtype: "model_fallback",
        from_model: model.id,
        to_model: fallback.id,
        error: outcome.error.message,
      });
      cfg.useModel(fallback);
      model = fallback;
      outcome = yield* callModel(cfg, st, model);
    }
    if (outcome.kind !== "message") {
      if (outcome.partial) {
        const why = outcome.kind === "aborted" ? "interrupted" : outcome.error.message;
        const partial = uniqueToolUseIds(outcome.partial, st.history).message;
        yield recordAssistant(cfg, st, partial, why, model);
        const orphans = toolUses(partial.content);
        if (orphans.length > 0)
          yield recordUser(cfg, st, unanswered(orphans, `the model call failed: ${why}`), undefined);
      }
      if (outcome.kind === "aborted")
        return { next: "stop", reason: "interrupted", errors: ["The run was interrupted."] };
      return { next: "stop", reason: "model_error", errors: [outcome.error.message] };
    }
    st.turns++;
    const answer = uniqueToolUseIds(outcome.message, st.history);
    yield recordAssistant(cfg, st, answer.message, undefined, model);
    const calls = toolUses(answer.message.content);
    const overBudget = checkBudget(cfg, st);
    if (overBudget.next === "stop") {
      if (calls.length > 0) yield recordUser(cfg, st, unanswered(calls, "the budget was used up"), undefined);
      return overBudget;
    }
    if (calls.length > 0) {
      const tools = yield* toolStep({
        calls,
        toolInputProblems: outcome.toolInputProblems,
        repeatedIds: answer.repeated,
        registry: cfg.registry,
        session: cfg.session,
        cwd: cfg.cwd,
        signal: cfg.signal,
        stamp: cfg.stamp,
        gate: cfg.gate,
        hooks: cfg.hooks,
        toolTimeoutMs: cfg.toolTimeoutMs,
        stopAtTools: cfg.stopAtTools,
      });
      st.denials.push(...tools.denials);
      yield recordUser(cfg, st, tools.results, Object.keys(tools.data).length > 0 ? tools.data : undefined);
      if (cfg.signal.aborted) return { next: "stop", reason: "interrupted", errors: ["The run was interrupted."] };
      if (tools.endRun && tools.stop) {
        return {
          next: "stop",
          reason: tools.stop,
          resultText: tools.endRun.result,
          question: tools.endRun.question,
          structuredOutput: tools.endRun.structuredOutput,
        };
      }
      if (tools.stop)
        return {
          next: "stop",
          reason: tools.stop,
          errors: [STOP_ERRORS[tools.stop] ?? "The run was stopped."],
        };
      return { next: "continue" };
    }
    switch (outcome.message.stop_reason) {
      case "max_tokens":
        if (countContinuation() >= cfg.maxTokensContinuations) {
          return {
            next: "stop",
            reason: "max_tokens",
            errors: [
              `The model reached its output limit ${cfg.maxTokensContinuations + 1} times in a row; the answer is incomplete.`,
            ],
          };
        }
        yield recordUser(cfg, st, [{ type: "text", text: CONTINUE_PROMPT }], undefined);
        return { next: "continue" };
      case "refusal":
        return { next: "stop", reason: "refusal" };
      default:
        if (cfg.structuredOutput) {
          // The answer must come through StructuredOutput: ask for it, a bounded number of times.
          if (outputReminders >= cfg.maxStructuredOutputRetries)
            return {
              next: "stop",
              reason: "structured_output_missing",
              errors: [`The model ended ${outputReminders + 1} times without a valid StructuredOutput call.`],
            };
          outputReminders++;
          yield recordUser(cfg, st, [{ type: "text", text: STRUCTURED_OUTPUT_REMINDER }], undefined);
          return { next: "continue" };
        }
        if (cfg.loopControl && reminders < cfg.maxToolReminders) {
          reminders++;
          yield recordUser(cfg, st, [{ type: "text", text: TOOL_REMINDER }], undefined);
          return { next: "continue" };
        }
        return yield* stopHooks(cfg, st);
    }
  }

  /** Stop hooks may keep the agent going (bounded), with their reason as the next prompt. */
  async function* stopHooks(cfg: LoopConfig, st: LoopState): AsyncGenerator<SDKMessage, NextStep> {
    if (!cfg.hooks?.has("Stop") || stopHookRuns >= cfg.maxStopHookContinuations)
      return { next: "stop", reason: "completed" };
    const outcome = await cfg.hooks.run(
      "Stop",
      { stop_hook_active: stopHookRuns > 0, last_assistant_message: finalText(st) },
      { signal: cfg.signal },
    );
    const report = reportHookOutcome(cfg.stamp, outcome);
    if (report) yield report;
    if (!outcome.continue)
      return {
        next: "stop",
        reason: "hook_stopped",
        errors: [outcome.stopReason ?? "A Stop hook ended the run."],
      };
    if (!outcome.block) return { next: "stop", reason: "completed" };
    stopHookRuns++;
    yield recordUser(cfg, st, [{ type: "text", text: outcome.block.reason }], undefined);
    return { next: "continue" };
  }
}
