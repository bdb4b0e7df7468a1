import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { ModelRequest, ModelTool } from "../model.js";
import { MCP_TOOL_OPTIONS } from "../text-protocol/index.js";
import { toPrompt } from "./to-prompt.js";

/** Tool definitions in the AI SDK's shape, per tool list (a run passes the same list every call). */
const functionToolCache = new WeakMap<readonly ModelTool[], LanguageModelV3FunctionTool[]>();

function functionTools(tools: readonly ModelTool[]): LanguageModelV3FunctionTool[] {
  let converted = functionToolCache.get(tools);
  if (!converted) {
    converted = tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
      // Read only by the text-protocol wrapper; providers ignore options under a key not theirs.
      ...(tool.mcp && { providerOptions: { [MCP_TOOL_OPTIONS]: { ...tool.mcp } } }),
    }));
    functionToolCache.set(tools, converted);
  }
  return converted;
}

/** A {@link ModelRequest} as AI SDK call options. */
export function toCallOptions(request: ModelRequest): LanguageModelV3CallOptions {
  const tools = functionTools(request.tools);
  const settings = request.settings ?? {};
  return {
    prompt: toPrompt(request.system, request.history),
    tools: tools.length > 0 ? tools : undefined,
    toolChoice: tools.length > 0 ? (settings.toolChoice ?? { type: "auto" }) : undefined,
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.topP !== undefined && { topP: settings.topP }),
    ...(settings.responseFormat && { responseFormat: settings.responseFormat }),
    maxOutputTokens: request.maxOutputTokens,
    providerOptions: request.providerOptions,
    abortSignal: request.signal,
  };
}
