import { DEFAULT_CONTEXT_WINDOW } from "../context/index.js";
import type { Model, ModelTool } from "../model/index.js";
import type { HistoryEntry } from "../protocol/index.js";
import { notLoadedError, presentTools, TOOL_SEARCH_TOOL_NAME, toolSearchInUse } from "../tool-search/index.js";
import type { RunContext } from "./run-context.js";

// Tool search in the turn: what a model call offers, and which calls are refused as not loaded.
// Both read the history as it is (the ToolSearch results in it), never state of their own.

/** What tool search reads of the run: its history and current model. */
export interface SearchState {
  readonly history: readonly HistoryEntry[];
  readonly model: Model;
}

/** The tools a model call of a run with tool search offers (see `presentTools`). */
export function searchedTools(context: RunContext, state: SearchState, model: Model): ModelTool[] {
  if (!context.toolSearch) return context.registry.definitions();
  return presentTools(context.registry, context.toolSearch, contextWindowOf(model), state.history);
}

/** Why a call of `toolName` may not go on (a deferred tool not loaded), or undefined. */
export function notLoaded(context: RunContext, state: SearchState, toolName: string): string | undefined {
  if (!context.toolSearch) return undefined;
  return notLoadedError(context.registry, context.toolSearch, contextWindowOf(state.model), state.history, toolName);
}

/**
 * The names of the tools the model may reach (`system`/`init`'s `tools`): the registry's, but
 * ToolSearch only while tool search is in use (it is not sent otherwise).
 */
export function reachableToolNames(context: RunContext, state: SearchState): string[] {
  const names = context.registry.names();
  const { toolSearch } = context;
  if (toolSearch && toolSearchInUse(context.registry, toolSearch, contextWindowOf(state.model))) return names;
  return names.filter((name) => name !== TOOL_SEARCH_TOOL_NAME);
}

/** The context window tool search measures the MCP tools' share of. */
function contextWindowOf(model: Model): number {
  return model.info?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
}
