import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { errorMessage, GyreError } from "../errors/index.js";
import { type McpFileServerConfig, parseServerEntry, SERVER_NAME } from "../mcp/index.js";

/** A plugin to load (the Claude Agent SDK's `SdkPluginConfig`): a folder on disk. */
export interface PluginConfig {
  type: "local";
  /** The plugin's folder, absolute or relative to the run's `cwd`. */
  path: string;
  /** Load its commands, agents, skills and hooks but not its MCP servers (the caller runs them). */
  skipMcpDiscovery?: boolean;
}

/** A plugin as read from its folder: what it brings, each part namespaced by its name. */
export interface Plugin {
  /** `plugin.json`'s `name`, else the folder's name. */
  name: string;
  /** The plugin's folder (absolute): `${CLAUDE_PLUGIN_ROOT}` in its hooks and servers. */
  path: string;
  version?: string;
  description?: string;
  /** Folders of its slash commands (`commands/`, and the manifest's `commands`). */
  commandFolders: string[];
  /** Its slash commands: `plugin:command` (`plugin:folder:command` in a subfolder), each with its Markdown file. */
  commands: Array<{ name: string; file: string }>;
  /** Folders of its agent files (`agents/`, and the manifest's `agents`). */
  agentFolders: string[];
  /** Its skills folder (`skills/`). */
  skillsFolder: string;
  /** Its hooks (`hooks/hooks.json`, or the manifest's `hooks`), in the settings files' shape, the root expanded. */
  hooks?: unknown;
  /** Its MCP servers (`.mcp.json`, or the manifest's `mcpServers`), by their own names. */
  mcpServers: Record<string, McpFileServerConfig>;
}

const ROOT_VARIABLE = /\$\{CLAUDE_PLUGIN_ROOT\}/g;
const PLUGIN_NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * Reads the plugins of a run, as Claude Code lays a plugin out: `.claude-plugin/plugin.json`
 * (optional: the folder's name stands in) with `name`, `version`, `description`, and the
 * folders `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and `.mcp.json` beside it (the
 * manifest's `commands`, `agents`, `hooks` and `mcpServers` add to or replace them, as paths or
 * inline). `${CLAUDE_PLUGIN_ROOT}` in hooks and servers is the plugin's folder. A plugin
 * `enabledPlugins` turns off (`"name": false`, or `"name@marketplace": false`) is left out.
 * A missing folder or malformed file is a `config_error` naming it.
 */
export async function loadPlugins(
  configs: readonly PluginConfig[],
  options: { cwd: string; enabledPlugins?: Record<string, unknown> },
): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (const config of configs) {
    const plugin = await loadPlugin(path.resolve(options.cwd, config.path), config.skipMcpDiscovery === true);
    if (disabled(plugin.name, options.enabledPlugins)) continue;
    if (plugins.some((other) => other.name === plugin.name))
      throw new GyreError("config_error", `Two plugins are named "${plugin.name}": ${plugin.path}`);
    plugins.push(plugin);
  }
  return plugins;
}

/** Whether settings' `enabledPlugins` turn the plugin off, by its name or `name@marketplace`. */
function disabled(name: string, enabled: Record<string, unknown> | undefined): boolean {
  if (!enabled) return false;
  return Object.entries(enabled).some(
    ([key, value]) => value === false && (key === name || key.split("@")[0] === name),
  );
}

async function loadPlugin(folder: string, skipMcp: boolean): Promise<Plugin> {
  const fail = (why: string, cause?: unknown): never => {
    throw new GyreError("config_error", `Plugin ${folder}: ${why}`, cause === undefined ? {} : { cause });
  };
  if (!(await stat(folder).catch(() => undefined))?.isDirectory()) fail("is not a folder");
  const manifestFile = path.join(folder, ".claude-plugin", "plugin.json");
  const manifest = (await readJson(manifestFile, fail)) ?? {};
  const name = manifest.name ?? path.basename(folder);
  if (typeof name !== "string" || !PLUGIN_NAME.test(name))
    fail(`its name ${JSON.stringify(name)} is not letters, digits, -, _ and .`);
  const inside = (value: unknown, key: string): string[] => {
    if (value === undefined) return [];
    const list = Array.isArray(value) ? value : [value];
    if (!list.every((item) => typeof item === "string")) return fail(`plugin.json's \`${key}\` is not a path or paths`);
    return list.map((item) => path.resolve(folder, item as string));
  };
  const commandFolders = [path.join(folder, "commands"), ...inside(manifest.commands, "commands")];
  const commands = (await Promise.all(commandFolders.map((dir) => commandFiles(dir)))).flat();
  const hooks = await pluginHooks(folder, manifest.hooks, fail);
  const mcpServers = skipMcp ? {} : await pluginServers(folder, manifest.mcpServers, fail);
  return {
    name: name as string,
    path: folder,
    ...(typeof manifest.version === "string" && { version: manifest.version }),
    ...(typeof manifest.description === "string" && { description: manifest.description }),
    commandFolders,
    commands: commands.map((command) => ({ ...command, name: `${name as string}:${command.name}` })),
    agentFolders: [path.join(folder, "agents"), ...inside(manifest.agents, "agents")],
    skillsFolder: path.join(folder, "skills"),
    ...(hooks !== undefined && { hooks }),
    mcpServers,
  };
}

/** The Markdown files under a commands folder, named as typed after `/` (`sub/x.md` is `sub:x`). */
async function commandFiles(folder: string): Promise<Array<{ name: string; file: string }>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()
    .map((file) => ({ name: path.relative(folder, file).slice(0, -".md".length).split(path.sep).join(":"), file }));
}

/** `hooks/hooks.json` (`{ hooks: { PreToolUse: [...] } }`), or the manifest's `hooks`: a path or the object. */
async function pluginHooks(folder: string, value: unknown, fail: (why: string) => never): Promise<unknown> {
  const file = typeof value === "string" ? path.resolve(folder, value) : path.join(folder, "hooks", "hooks.json");
  const found =
    typeof value === "object" && value !== null ? expandRoot(value, folder) : await readJson(file, fail, folder);
  if (found === undefined) return undefined;
  const record = found as Record<string, unknown>;
  return "hooks" in record ? record.hooks : record;
}

/** `.mcp.json`'s `mcpServers`, or the manifest's `mcpServers`: a path to such a file or the servers. */
async function pluginServers(
  folder: string,
  value: unknown,
  fail: (why: string) => never,
): Promise<Record<string, McpFileServerConfig>> {
  const file = typeof value === "string" ? path.resolve(folder, value) : path.join(folder, ".mcp.json");
  const found =
    typeof value === "object" && value !== null ? expandRoot(value, folder) : await readJson(file, fail, folder);
  if (found === undefined) return {};
  const record = found as Record<string, unknown>;
  const servers = (typeof record.mcpServers === "object" ? record.mcpServers : record) as Record<string, unknown>;
  const parsed: Record<string, McpFileServerConfig> = {};
  for (const [name, entry] of Object.entries(servers ?? {})) {
    if (!SERVER_NAME.test(name)) fail(`its MCP server name "${name}" is not letters, digits, - or _`);
    const result = parseServerEntry(entry);
    if ("error" in result) return fail(`its MCP server "${name}" ${result.error}`);
    parsed[name] = result.config;
  }
  return parsed;
}

/** An inline part of the manifest with `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin's folder. */
function expandRoot(value: object, root: string): unknown {
  return JSON.parse(JSON.stringify(value).replace(ROOT_VARIABLE, JSON.stringify(root).slice(1, -1)));
}

/**
 * A JSON object file, with `${CLAUDE_PLUGIN_ROOT}` replaced by `root` when given; undefined
 * when the file does not exist.
 */
async function readJson(
  file: string,
  fail: (why: string, cause?: unknown) => never,
  root?: string,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return fail(`cannot read ${file}: ${errorMessage(error)}`, error);
  }
  // Replaced in the text as a JSON string's content, so that a root with quotes stays valid JSON.
  const expanded = root === undefined ? text : text.replace(ROOT_VARIABLE, JSON.stringify(root).slice(1, -1));
  let value: unknown;
  try {
    value = JSON.parse(expanded);
  } catch (error) {
    return fail(`${file} is not valid JSON: ${errorMessage(error)}`, error);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(`${file} is not a JSON object`);
  return value as Record<string, unknown>;
}
