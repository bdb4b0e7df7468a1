import type { HistoryEntry } from "../protocol/index.js";
import type { AnyTool, ToolDefinition, ToolRegistry } from "../tools/index.js";
import { loadedToolNames, TOOL_SEARCH_TOOL_NAME } from "./loaded.js";
import type { ToolSearchSetting } from "./setting.js";
import { TOOL_SEARCH_DESCRIPTION, toolSearchTool } from "./tool-search-tool.js";

/** What tool search makes of a registry as it is now (one revision) for one context window. */
interface Deferral {
  revision: number;
  contextWindow: number;
  setting: ToolSearchSetting;
  /** Every offered tool's definition, in registry order. */
  definitions: ToolDefinition[];
  /** What a call sends while tool search is not in use: every definition but ToolSearch's. */
  whole: ToolDefinition[];
  /** The tools sent by name only until a ToolSearch call loads them; empty when tool search is not in use. */
  deferred: ReadonlySet<string>;
  /** ToolSearch's definition, the deferred tools listed in its description. */
  toolSearch: ToolDefinition | undefined;
  /** The last list sent, kept so that the same loaded tools give the same array (the adapter's cache). */
  last?: { key: string; tools: ToolDefinition[] };
}

const deferrals = new WeakMap<ToolRegistry, Deferral>();

/**
 * The tool definitions of one model call. Without tool search in use, every offered tool's but
 * ToolSearch's.
 * With it, the deferred MCP tools are left out but for those the history's ToolSearch calls
 * loaded, and ToolSearch's description lists every deferred tool by name. Tool search is in use
 * when the run has a setting, ToolSearch is offered and some MCP tool is: always (`mode:
 * "always"`), or once the MCP tools' definitions would take more than `percent` of
 * `contextWindow` (characters / 4 as tokens).
 */
export function presentTools(
  registry: ToolRegistry,
  setting: ToolSearchSetting,
  contextWindow: number,
  history: readonly HistoryEntry[],
): ToolDefinition[] {
  const deferral = deferralOf(registry, setting, contextWindow);
  if (deferral.deferred.size === 0) return deferral.whole;
  const loaded = [...loadedToolNames(history)].filter((name) => deferral.deferred.has(name));
  const key = loaded.sort().join("\n");
  if (deferral.last?.key === key) return deferral.last.tools;
  const keep = new Set(loaded);
  const tools = deferral.definitions.flatMap((definition) => {
    if (definition.name === TOOL_SEARCH_TOOL_NAME) return deferral.toolSearch ? [deferral.toolSearch] : [];
    return deferral.deferred.has(definition.name) && !keep.has(definition.name) ? [] : [definition];
  });
  deferral.last = { key, tools };
  return tools;
}

/** Whether tool search is in use for `registry` (see {@link presentTools}): some MCP tool is deferred. */
export function toolSearchInUse(registry: ToolRegistry, setting: ToolSearchSetting, contextWindow: number): boolean {
  return deferralOf(registry, setting, contextWindow).deferred.size > 0;
}

/**
 * The error a call of `toolName` gets when the tool is deferred and no ToolSearch call in the
 * history loaded it: the model never saw its schema, so the call is refused before it is checked
 * or run, and told how to load the tool. Undefined when the call may go on.
 */
export function notLoadedError(
  registry: ToolRegistry,
  setting: ToolSearchSetting,
  contextWindow: number,
  history: readonly HistoryEntry[],
  toolName: string,
): string | undefined {
  const deferral = deferralOf(registry, setting, contextWindow);
  if (!deferral.deferred.has(toolName) || loadedToolNames(history).has(toolName)) return undefined;
  return (
    `Error: ${toolName} is a deferred tool that has not been loaded, so it did not run: its schema was never ` +
    `sent to you. Load it first: call ${TOOL_SEARCH_TOOL_NAME} with query "select:${toolName}", then call ` +
    `${toolName} again on your next turn.`
  );
}

/** The tools a ToolSearch bound to `registry` searches: the MCP tools it offers, and every tool for `select:`. */
export function searchCatalog(registry: ToolRegistry): { deferred: AnyTool[]; all: AnyTool[] } {
  const all = registry.offered().filter((tool) => tool.name !== TOOL_SEARCH_TOOL_NAME);
  return { deferred: all.filter(isDeferrable), all };
}

/**
 * Gives `registry` a ToolSearch that searches its own tools (replacing one bound to another
 * registry, as a subagent's copy of its parent's tools has).
 */
export function bindToolSearch(registry: ToolRegistry): void {
  registry.register(toolSearchTool(() => searchCatalog(registry)));
}

/** A registry built from another's tools: its ToolSearch, if it has one, searches its own tools. */
export function rebindToolSearch(registry: ToolRegistry): ToolRegistry {
  if (registry.list().some((tool) => tool.name === TOOL_SEARCH_TOOL_NAME)) bindToolSearch(registry);
  return registry;
}

/**
 * MCP tools are deferred, but for those their server marks `_meta["anthropic/alwaysLoad"]`;
 * built-in and caller tools always go whole (Claude Code's rule for MCP tools).
 */
function isDeferrable(tool: AnyTool): boolean {
  return tool.mcp !== undefined && tool.mcp.alwaysLoad !== true;
}

function deferralOf(registry: ToolRegistry, setting: ToolSearchSetting, contextWindow: number): Deferral {
  const cached = deferrals.get(registry);
  if (
    cached?.revision === registry.revision &&
    cached.contextWindow === contextWindow &&
    sameSetting(cached.setting, setting)
  )
    return cached;
  const definitions = registry.definitions();
  const offered = registry.offered();
  const candidates = offered.filter(isDeferrable).map((tool) => tool.name);
  const searchable = offered.some((tool) => tool.name === TOOL_SEARCH_TOOL_NAME);
  const deferred =
    searchable && candidates.length > 0 && overThreshold(definitions, candidates, setting, contextWindow);
  const names = new Set(deferred ? candidates : []);
  const deferral: Deferral = {
    revision: registry.revision,
    contextWindow,
    setting,
    definitions,
    whole: definitions.filter((definition) => definition.name !== TOOL_SEARCH_TOOL_NAME),
    deferred: names,
    toolSearch: deferred ? listing(definitions, names) : undefined,
  };
  deferrals.set(registry, deferral);
  return deferral;
}

function overThreshold(
  definitions: readonly ToolDefinition[],
  candidates: readonly string[],
  setting: ToolSearchSetting,
  contextWindow: number,
): boolean {
  if (setting.mode === "always") return true;
  const names = new Set(candidates);
  let characters = 0;
  for (const definition of definitions)
    if (names.has(definition.name))
      characters +=
        definition.name.length + definition.description.length + JSON.stringify(definition.inputSchema).length;
  return characters / 4 > (contextWindow * setting.percent) / 100;
}

function listing(definitions: readonly ToolDefinition[], deferred: ReadonlySet<string>): ToolDefinition | undefined {
  const own = definitions.find((definition) => definition.name === TOOL_SEARCH_TOOL_NAME);
  if (!own) return undefined;
  const names = definitions.filter((definition) => deferred.has(definition.name)).map((definition) => definition.name);
  const description = `${TOOL_SEARCH_DESCRIPTION}\n\n<available-deferred-tools>\n${names.join("\n")}\n</available-deferred-tools>`;
  return { ...own, description };
}

function sameSetting(a: ToolSearchSetting, b: ToolSearchSetting): boolean {
  return a.mode === b.mode && (a.mode === "always" || (b.mode === "auto" && a.percent === b.percent));
}
