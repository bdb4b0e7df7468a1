import { isServerCompactionBlock, messageWindow, withPlanMode } from "../../context/index.js";
import { errorMessage, GyreError } from "../../errors/index.js";
import type { Model, ModelTool } from "../../model/index.js";
import type { SDKMessage } from "../../protocol/index.js";
import type { ToolRegistry } from "../../tools/index.js";
import { compact, serverCompacted } from "./compact.js";
import { checkBudget } from "../limits.js";
import { type ModelStepOutcome, modelStep } from "./model-call.js";
import { interrupted, type NextStep, stop } from "../next-step.js";
import { recordAssistant, recordUser, toolUses, unanswered } from "../record.js";
import type { RunContext } from "../run-context.js";
import { type RunState, type TurnAnswer, useModel } from "../run-state.js";
import { uniqueToolUseIds } from "../tool-use-ids.js";
import { searchedTools } from "../tool-search.js";

/**
 * The model call: the history goes to the run's current model (retries inside). A prompt the
 * provider finds too long is compacted once and sent again; a call that fails for good moves
 * the run to its fallback model. The answer is recorded and handed on to the next step.
 */
export async function* modelTurnStep(
  context: RunContext,
  state: RunState,
): AsyncGenerator<SDKMessage, NextStep | Answered> {
  // The model this call goes to: a Query.setModel during the call applies to the next one.
  let model = state.model;
  // The workspace as this step starts: what the step changes is its difference from the next one.
  if (context.snapshots) state.snapshot = await context.snapshots.track();
  const system = await systemPrompt(context, state);
  if (system instanceof GyreError) return stop("model_error", { errors: [system.message] });
  let outcome = yield* callModel(context, state, model, system);
  if (outcome.kind === "failed" && state.modelSettings.compactor && outcome.error.code === "model_prompt_too_long") {
    const compacted = yield* compact(context, state, "auto", undefined, true);
    if (compacted.next !== "continue") return compacted;
    model = state.model;
    outcome = yield* callModel(context, state, model, system);
  }
  const fallback = context.fallbackModel;
  if (outcome.kind === "failed" && fallback && model !== fallback) {
    // Failed for good, retries included: the rest of the run uses the fallback model.
    yield context.stamp.stamp({
      type: "system",
      subtype: "model_fallback",
      from_model: model.id,
      to_model: fallback.id,
      error: outcome.error.message,
    });
    useModel(context, state, fallback);
    model = fallback;
    outcome = yield* callModel(context, state, model, system);
  }
  if (outcome.kind !== "message") {
    if (outcome.partial) {
      // What streamed before the failure is kept, its unfinished calls answered.
      const why = outcome.kind === "aborted" ? "interrupted" : outcome.error.message;
      const partial = uniqueToolUseIds(outcome.partial, state.history).message;
      yield recordAssistant(context, state, model, partial, why);
      const orphans = toolUses(partial.content);
      if (orphans.length > 0) yield recordUser(context, state, unanswered(orphans, `the model call failed: ${why}`));
    }
    if (outcome.kind === "aborted") return interrupted(context.signal);
    return stop("model_error", { errors: [outcome.error.message] });
  }
  state.turns++;
  if (outcome.message.content.some(isServerCompactionBlock))
    yield* serverCompacted(context, state, model, outcome.serverCompaction);
  const answer = uniqueToolUseIds(outcome.message, state.history);
  yield recordAssistant(context, state, model, answer.message);
  const calls = toolUses(answer.message.content);
  const overBudget = checkBudget(context, state);
  if (overBudget.next !== "continue") {
    if (calls.length > 0) yield recordUser(context, state, unanswered(calls, "the budget was used up"));
    return overBudget;
  }
  return {
    next: "answered",
    answer: {
      message: answer.message,
      calls,
      toolInputProblems: outcome.toolInputProblems,
      repeatedIds: answer.repeated,
    },
  };
}

/** The model answered: the turn goes on with its answer. */
export interface Answered {
  next: "answered";
  answer: TurnAnswer;
}

/** One model call for the current history. */
async function* callModel(
  context: RunContext,
  state: RunState,
  model: Model,
  system: string,
): AsyncGenerator<SDKMessage, ModelStepOutcome> {
  const outcome = yield* modelStep({
    turn: state.turns + 1,
    model,
    request: {
      system,
      history: context.limits.maxMessages ? messageWindow(state.history, context.limits.maxMessages) : state.history,
      tools: modelTools(context, state, model, providerMaySearch(context, state)),
      maxOutputTokens: context.limits.maxOutputTokens,
      providerOptions: state.modelSettings.providerOptions,
      maxToolInputBytes: context.limits.maxToolInputBytes,
    },
    signal: context.signal,
    retry: context.retry,
    includePartialMessages: context.includePartialMessages,
    stamp: context.stamp,
    newId: () => `msg_gyre_${context.newUuid()}`,
    now: context.now,
    tracing: context.tracing,
    ...(context.modelAnswering && { onAnswerStarted: context.modelAnswering }),
  });
  state.apiMs += outcome.apiMs;
  return outcome;
}

/**
 * This call's system prompt, built afresh (the plan and retrieved context as they are now), and
 * in plan mode the reminder of it (a literal prompt too: the mode is the run's, not the prompt's);
 * a prompt function that throws ends the run (`model_error`) before the call.
 */
async function systemPrompt(context: RunContext, state: RunState): Promise<string | GyreError> {
  const mode = state.permissions.mode;
  if (!context.turnPrompt) return withPlanMode(context.systemPrompt, mode);
  try {
    return withPlanMode(await context.turnPrompt(context, { turn: state.turns + 1 }), mode);
  } catch (error) {
    return new GyreError("hook_error", `Building the system prompt failed: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * The registry's tool definitions, one array per registry revision (it changes only when an
 * MCP server's tools change), so the adapter's cache hits and the prompt stays the same; and
 * the same without the provider's search standing in for a search tool.
 */
const toolDefinitions = new WeakMap<ToolRegistry, { revision: number; tools: ModelTool[]; local: ModelTool[] }>();

/**
 * The tools a model call offers: with tool search (`context.toolSearch`), the deferred MCP
 * tools by name only but for those the history's ToolSearch calls loaded (see `presentTools`);
 * without `serverSearch`, no tool asks for the provider's own search.
 */
function modelTools(context: RunContext, state: RunState, model: Model, serverSearch: boolean): ModelTool[] {
  if (context.toolSearch) {
    const tools = searchedTools(context, state, model);
    return serverSearch ? tools : withoutServerSearch(tools);
  }
  const { registry } = context;
  let cached = toolDefinitions.get(registry);
  if (cached?.revision !== registry.revision) {
    const tools = registry.definitions();
    cached = { revision: registry.revision, tools, local: withoutServerSearch(tools) };
    toolDefinitions.set(registry, cached);
  }
  return serverSearch ? cached.tools : cached.local;
}

function withoutServerSearch(tools: ModelTool[]): ModelTool[] {
  return tools.some((tool) => tool.serverSearch) ? tools.map(({ serverSearch: _search, ...tool }) => tool) : tools;
}

/**
 * Whether the provider may run its own web search this turn: its searches pass no permission
 * check and no hook (the provider runs them inside its answer), so only while a call of each
 * search tool would be allowed outright (an allow rule, the mode) and no PreToolUse or
 * PostToolUse hook would see it. A deny rule, an ask rule or a mode that asks keeps the tool
 * Gyre's own, and its calls go through the pipeline like any other.
 */
function providerMaySearch(context: RunContext, state: RunState): boolean {
  const tools = context.registry.offered().filter((tool) => tool.serverSearch);
  if (tools.length === 0) return false;
  return tools.every((tool) => {
    if (context.hooks?.matches("PreToolUse", tool.name) || context.hooks?.matches("PostToolUse", tool.name)) {
      return false;
    }
    const request = { toolName: tool.name, input: { query: "" }, sideEffect: tool.sideEffect, cwd: context.cwd };
    return state.permissions.evaluate(request).behavior === "allow";
  });
}
