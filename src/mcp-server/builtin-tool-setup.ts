import { homedir } from "node:os";
import { providerKeyEnvNames } from "../model/index.js";
import { loadShellParser } from "../permissions/index.js";
import { describeIgnoredSettings, type LoadedSettings, loadSettings, mergeSettings } from "../settings/index.js";
import { webFetchSettings, webSearchOptions } from "../run/index.js";
import { defaultTools, passedVariables } from "../tools/builtin/index.js";
import { ToolRegistry } from "../tools/index.js";
import type { ServeConfig } from "./serve-config.js";

/** What every client's built-in tools share: the settings files as read at start, and the tools. */
export interface BuiltinToolSetup {
  config: ServeConfig;
  settings: LoadedSettings;
  registry: ToolRegistry;
}

/**
 * Reads the settings files as a run of the same options does (`settingSources`, trust of the
 * folder) and builds the built-in tools; `disallowedTools` that name a whole tool hide it.
 */
export async function setUpBuiltinTools(config: ServeConfig): Promise<BuiltinToolSetup> {
  const { cwd, settingSources = [], requireProjectTrust, disallowedTools = [], passEnv, providers } = config.query;
  const settings =
    settingSources.length === 0
      ? mergeSettings([], homedir())
      : await loadSettings({ cwd, sources: settingSources, requireTrust: requireProjectTrust === true });
  if (settings.ignored) config.log(describeIgnoredSettings(settings.ignored));
  // Commands never see the keys of the providers Gyre talks to, as in a run.
  const env = passedVariables(passEnv, config.query.env);
  // A tool only a person answers (AskUserQuestion) has no one to ask behind an MCP client.
  const tools = defaultTools({
    cwd,
    bash: { secretEnv: providerKeyEnvNames(providers), passEnv, env },
    // The client's own model reads a page: WebFetch returns it rather than asking a small model.
    webFetch: { settings: webFetchSettings(config.query, settings) },
    webSearch: webSearchOptions(config.query, settings),
  }).filter((tool) => !tool.requiresUserInteraction);
  const registry = new ToolRegistry(tools, { disallowed: disallowedTools.filter((rule) => !rule.includes("(")) });
  // Bash permission checks need the shell parser: loaded now, not at the first call.
  void loadShellParser();
  return { config, settings, registry };
}
