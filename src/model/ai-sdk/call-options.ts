import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3ProviderTool,
} from "@ai-sdk/provider";
import type { ModelApi, ModelRequest, ModelTool } from "../model.js";
import { MCP_TOOL_OPTIONS } from "../text-protocol/index.js";
import { customTool, freeformToolChoice, withRawFreeformInputs } from "./freeform-calls.js";
import { serverSearchTool } from "./server-search-tool.js";
import { toPrompt } from "./to-prompt.js";

/** What the model takes beyond function tools. */
export interface ToolCapabilities {
  /** Freeform (OpenAI `custom`) tools, sent as `openai.custom` provider tools. */
  freeformTools: boolean;
  /** The model's wire API when its provider searches the web itself: a search tool becomes that search. */
  searchApi?: ModelApi;
}

/** A request's tools in the AI SDK's shape, and the names of those sent as freeform tools. */
export interface CallTools {
  tools: Array<LanguageModelV3FunctionTool | LanguageModelV3ProviderTool>;
  freeform: ReadonlySet<string>;
  /** Names a forced tool choice must name as `allowedTools` (see {@link freeformToolChoice}). */
  forcedByAllowList: ReadonlySet<string>;
}

/** Names the AI SDK reads, in a forced tool choice, as OpenAI's hosted tool of that type (`{ type: "web_search" }`). */
const HOSTED_CHOICE_NAMES = new Set([
  "apply_patch",
  "code_interpreter",
  "file_search",
  "image_generation",
  "mcp",
  "web_search",
  "web_search_preview",
]);

/** Converted tool lists, per kind of model, then per tool list (a run passes the same list every call). */
const toolCaches = new Map<string, WeakMap<readonly ModelTool[], CallTools>>();

/**
 * The request's tools for a model with these capabilities (a freeform tool is a function tool for
 * a model without them; a search tool is the provider's own search where it has one).
 */
export function callTools(tools: readonly ModelTool[], capabilities: ToolCapabilities): CallTools {
  const kind = `${capabilities.freeformTools}:${capabilities.searchApi ?? ""}`;
  let cache = toolCaches.get(kind);
  if (!cache) {
    cache = new WeakMap();
    toolCaches.set(kind, cache);
  }
  let converted = cache.get(tools);
  if (!converted) {
    const freeform = new Set<string>();
    converted = {
      tools: tools.map((tool) => {
        const search =
          tool.serverSearch && serverSearchTool(capabilities.searchApi, tool.serverSearch, tools.length === 1);
        if (search) return search;
        if (capabilities.freeformTools && tool.freeform) {
          freeform.add(tool.name);
          return customTool({ ...tool, freeform: tool.freeform });
        }
        return functionTool(tool);
      }),
      freeform,
      // A model that takes freeform tools is OpenAI's Responses API (or Azure's): its tool choice
      // of a function named like a hosted tool would ask for the hosted tool.
      forcedByAllowList: capabilities.freeformTools
        ? new Set([...freeform, ...tools.flatMap((tool) => (HOSTED_CHOICE_NAMES.has(tool.name) ? [tool.name] : []))])
        : freeform,
    };
    cache.set(tools, converted);
  }
  return converted;
}

function functionTool(tool: ModelTool): LanguageModelV3FunctionTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
    // Read only by the text-protocol wrapper; providers ignore options under a key not theirs.
    ...(tool.mcp && { providerOptions: { [MCP_TOOL_OPTIONS]: { ...tool.mcp } } }),
  };
}

/** A {@link ModelRequest} as AI SDK call options, with `tools` as {@link callTools} made them. */
export function toCallOptions(request: ModelRequest, tools: CallTools, api?: ModelApi): LanguageModelV3CallOptions {
  const settings = request.settings ?? {};
  const offered = tools.tools.length > 0;
  const { toolChoice, providerOptions } = freeformToolChoice(
    settings.toolChoice ?? { type: "auto" },
    tools.forcedByAllowList,
    request.providerOptions,
  );
  return {
    prompt: withRawFreeformInputs(toPrompt(request.system, request.history, api), tools.freeform),
    tools: offered ? tools.tools : undefined,
    toolChoice: offered ? toolChoice : undefined,
    ...(settings.temperature !== undefined && { temperature: settings.temperature }),
    ...(settings.topP !== undefined && { topP: settings.topP }),
    ...(settings.responseFormat && { responseFormat: settings.responseFormat }),
    maxOutputTokens: request.maxOutputTokens,
    providerOptions,
    abortSignal: request.signal,
  };
}
