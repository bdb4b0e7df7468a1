import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { ResolvedModel } from "../model/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { ToolRegistry } from "../tools/index.js";
import type { LoopConfig, LoopState } from "./loop-state.js";
import { type ModelStepOutcome, modelStep } from "./model-step.js";
import { toPrompt } from "./to-prompt.js";

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
    callOptions: callOptions(config, state),
    signal: config.signal,
    retry: config.retry,
    includePartialMessages: config.includePartialMessages,
    stamp: config.stamp,
    maxToolInputBytes: config.maxToolInputBytes,
  });
  state.apiMs += outcome.apiMs;
  return outcome;
}

/** Tool definitions in the AI SDK's shape; the registry does not change during a run. */
const toolDefinitions = new WeakMap<ToolRegistry, LanguageModelV3FunctionTool[]>();

function functionTools(registry: ToolRegistry): LanguageModelV3FunctionTool[] {
  let tools = toolDefinitions.get(registry);
  if (!tools) {
    tools = registry.definitions().map((definition) => ({
      type: "function",
      name: definition.name,
      description: definition.description,
      inputSchema: definition.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
    }));
    toolDefinitions.set(registry, tools);
  }
  return tools;
}

function callOptions(config: LoopConfig, state: LoopState): Omit<LanguageModelV3CallOptions, "abortSignal"> {
  const tools = functionTools(config.registry);
  return {
    prompt: toPrompt(config.systemPrompt, state.history),
    tools: tools.length > 0 ? tools : undefined,
    toolChoice: tools.length > 0 ? { type: "auto" } : undefined,
    maxOutputTokens: config.maxOutputTokens,
    providerOptions: config.providerOptions,
  };
}
