import type { ModelRequest, ModelTool, ResolvedModel } from "../model/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { ToolRegistry } from "../tools/index.js";
import type { LoopConfig, LoopState } from "./loop-state.js";
import { type ModelStepOutcome, modelStep } from "./model-step.js";

/**
 * One model call for the current history, with the run's tools and retry policy, to `model`
 * (the run's current one, which `Query.setModel` may change while the call runs).
 */
export async function* callModel(
  config: LoopConfig,
  state: LoopState,
  model: ResolvedModel = config.model,
): AsyncGenerator<SDKMessage, ModelStepOutcome> {
  const outcome = yield* modelStep({
    model,
    request: modelRequest(config, state),
    signal: config.signal,
    retry: config.retry,
    includePartialMessages: config.includePartialMessages,
    stamp: config.stamp,
  });
  state.apiMs += outcome.apiMs;
  return outcome;
}

/** The registry's tool definitions; one array per registry, which does not change during a run. */
const toolDefinitions = new WeakMap<ToolRegistry, ModelTool[]>();

function modelTools(registry: ToolRegistry): ModelTool[] {
  let tools = toolDefinitions.get(registry);
  if (!tools) {
    tools = registry.definitions();
    toolDefinitions.set(registry, tools);
  }
  return tools;
}

function modelRequest(config: LoopConfig, state: LoopState): Omit<ModelRequest, "signal"> {
  return {
    system: config.systemPrompt,
    history: state.history,
    tools: modelTools(config.registry),
    maxOutputTokens: config.maxOutputTokens,
    providerOptions: config.providerOptions,
    maxToolInputBytes: config.maxToolInputBytes,
  };
}
