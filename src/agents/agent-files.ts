import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage, GyreError } from "../errors/index.js";
import { type McpFileServerConfig, parseServerEntry, SERVER_NAME } from "../mcp/index.js";
import { PermissionMode } from "../protocol/index.js";
import type { AgentDefinition, AgentMcpServerSpec } from "../run/index.js";

/** An agent defined in a Markdown file: YAML front matter for its settings, the body for its prompt. */
export interface AgentFile {
  name: string;
  definition: AgentDefinition;
  file: string;
}

export interface AgentFileSources {
  cwd: string;
  home: string;
  /** The settings scopes read (`settingSources`): `user` reads the home folder's agents, `project` the cwd's. */
  scopes: ReadonlyArray<"user" | "project" | "local">;
}

/**
 * Agents from Claude Code's and Gyre's agent folders, lowest precedence first: the user's
 * (`~/.claude/agents`, `~/.gyre/agents`), then the project's (`.claude/agents`, `.gyre/agents`
 * in cwd). A later file of the same name wins, so a `.gyre` agent overrides its `.claude`
 * twin and a project agent the user's. A malformed file is a `config_error` naming it.
 */
export async function loadAgentFiles(sources: AgentFileSources): Promise<Map<string, AgentFile>> {
  const folders: string[] = [];
  const add = (root: string) => folders.push(...[".claude", ".gyre"].map((dir) => path.join(root, dir, "agents")));
  if (sources.scopes.includes("user")) add(sources.home);
  if (sources.scopes.includes("project") && path.resolve(sources.cwd) !== path.resolve(sources.home)) add(sources.cwd);
  const agents = new Map<string, AgentFile>();
  for (const folder of folders) {
    for (const file of await markdownFiles(folder)) {
      // The YAML parser is loaded with the first agent file: most runs have none.
      const { parse } = await import("yaml");
      const agent = parseAgentFile(await readFile(file, "utf8"), file, parse);
      agents.set(agent.name, agent);
    }
  }
  return agents;
}

/**
 * The agents of plugins (`agents/*.md` of each, and the folders its manifest names), each
 * named `plugin:agent` as Claude Code names them. A malformed file is a `config_error` naming it.
 */
export async function loadPluginAgentFiles(
  plugins: ReadonlyArray<{ name: string; agentFolders: readonly string[] }>,
): Promise<Map<string, AgentFile>> {
  const agents = new Map<string, AgentFile>();
  for (const plugin of plugins)
    for (const folder of plugin.agentFolders)
      for (const file of await markdownFiles(folder)) {
        const { parse } = await import("yaml");
        const agent = parseAgentFile(await readFile(file, "utf8"), file, parse);
        const name = `${plugin.name}:${agent.name}`;
        agents.set(name, { ...agent, name });
      }
  return agents;
}

/**
 * The agent files of the project in `cwd` (`.claude/agents/*.md`, `.gyre/agents/*.md`), unread:
 * what a run leaves out while the folder is not trusted. None when cwd is home (its agents are the user's).
 */
export async function projectAgentFiles(cwd: string, home: string): Promise<string[]> {
  if (path.resolve(cwd) === path.resolve(home)) return [];
  const folders = [".claude", ".gyre"].map((dir) => path.join(cwd, dir, "agents"));
  return (await Promise.all(folders.map(markdownFiles))).flat();
}

async function markdownFiles(folder: string): Promise<string[]> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
      .map((entry) => path.join(folder, entry.name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return [];
    throw new GyreError("config_error", `Cannot read agents folder ${folder}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * One agent file, as Claude Code reads it: `name` and `description` are required; `tools` and
 * `disallowedTools` are lists or comma-separated strings (and Gyre's `handoffs`: agent names);
 * `model`, `maxTurns`, `permissionMode` and `mcpServers` are optional; the body is the system
 * prompt. Inline MCP servers are checked as a `.mcp.json` entry is; their `${VAR}`s expand
 * when the agent starts.
 */
export function parseAgentFile(text: string, file: string, parseYaml: (yaml: string) => unknown): AgentFile {
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ""));
  const fail = (why: string): never => {
    throw new GyreError("config_error", `Agent file ${file} ${why}`);
  };
  if (!match) return fail("has no front matter: it must start with a `---` block holding name and description.");
  let fields: unknown;
  try {
    fields = parseYaml(match[1] ?? "");
  } catch (error) {
    return fail(`has front matter that is not valid YAML: ${errorMessage(error)}`);
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields))
    return fail("has front matter that is not a set of `key: value` fields.");
  const record = fields as Record<string, unknown>;
  const name = record.name ?? path.basename(file, ".md");
  if (typeof name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(name))
    return fail("has a `name` that is not a word of letters, digits, `-`, `_` or `.`.");
  if (typeof record.description !== "string" || record.description.trim() === "")
    return fail("needs a `description`: the model reads it to choose the agent.");
  const definition: AgentDefinition = {
    description: record.description.trim(),
    prompt: text.slice(match[0].length + (match.index ?? 0)).trim(),
  };
  const tools = nameList(record.tools, "tools", fail);
  if (tools) definition.tools = tools;
  const disallowed = nameList(record.disallowedTools, "disallowedTools", fail);
  if (disallowed) definition.disallowedTools = disallowed;
  if (record.model !== undefined) {
    if (typeof record.model !== "string" || record.model === "") return fail("has a `model` that is not a string.");
    definition.model = record.model;
  }
  if (record.maxTurns !== undefined) {
    if (!Number.isInteger(record.maxTurns) || (record.maxTurns as number) <= 0)
      return fail("has a `maxTurns` that is not a positive whole number.");
    definition.maxTurns = record.maxTurns as number;
  }
  const skills = nameList(record.skills, "skills", fail);
  if (skills) definition.skills = skills;
  const handoffs = nameList(record.handoffs, "handoffs", fail);
  if (handoffs) definition.handoffs = handoffs;
  if (record.permissionMode !== undefined) {
    const mode = PermissionMode.safeParse(record.permissionMode);
    if (!mode.success) return fail(`has an unknown \`permissionMode\`: ${String(record.permissionMode)}.`);
    definition.permissionMode = mode.data;
  }
  if (record.mcpServers !== undefined && record.mcpServers !== null)
    definition.mcpServers = mcpServerList(record.mcpServers, fail);
  return { name, definition, file };
}

function nameList(value: unknown, key: string, fail: (why: string) => never): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string")
    return value
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
  if (Array.isArray(value) && value.every((name) => typeof name === "string")) return value as string[];
  return fail(`has a \`${key}\` that is neither a list of names nor a comma-separated string.`);
}

/**
 * `mcpServers:` as a list whose items are a parent's server name or a map of server names to
 * entries (`- github` / `- local: { command: ... }`); a comma-separated string of names also works.
 */
function mcpServerList(value: unknown, fail: (why: string) => never): AgentMcpServerSpec[] {
  if (typeof value === "string") return nameList(value, "mcpServers", fail) ?? [];
  if (!Array.isArray(value)) return fail("has an `mcpServers` that is not a list of server names and servers.");
  return value.map((item): AgentMcpServerSpec => {
    if (typeof item === "string" && item.trim() !== "") return item.trim();
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return fail("has an `mcpServers` item that is neither a server name nor a map of servers.");
    const servers: Record<string, McpFileServerConfig> = {};
    for (const [name, entry] of Object.entries(item as Record<string, unknown>)) {
      if (!SERVER_NAME.test(name)) return fail(`has an MCP server name that is not letters, digits, - or _: ${name}.`);
      const parsed = parseServerEntry(entry);
      if ("error" in parsed) return fail(`has an MCP server "${name}" that is not valid: ${parsed.error}.`);
      servers[name] = parsed.config;
    }
    return servers;
  });
}
