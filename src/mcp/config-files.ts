import { readFile, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { errorMessage, GyreError } from "../errors/index.js";
import { gyreDataFolder } from "../sessions/index.js";
import { type McpFileServerConfig, parseServersRecord } from "./config-file-schema.js";

/** Where a server config lives, as in Claude Code; precedence on a name clash: `local` > `project` > `user`. */
export type McpConfigScope = "user" | "project" | "local";

/** A server found in an MCP config file, as written there (variables not expanded). */
export interface McpFileServer {
  name: string;
  scope: McpConfigScope;
  /** The file it is in. */
  path: string;
  config: McpFileServerConfig;
}

export interface McpConfigFilesOptions {
  /** The project folder: its `.mcp.json`, and its entry in the home files' `projects`. */
  cwd: string;
  /** Home folder of `~/.claude.json` and `~/.gyre/mcp.json`; defaults to the OS home (inject it in tests). */
  home?: string;
  /** Which scopes to read; default all. */
  sources?: readonly McpConfigScope[];
}

/** The files MCP servers are read from, and the one each scope of `gyre mcp add` writes. */
export interface McpConfigPaths {
  /** `<cwd>/.mcp.json`: the project's servers, shared through the repository (Claude Code's file). */
  project: string;
  /** `~/.claude.json`: Claude Code's user (`mcpServers`) and local (`projects[cwd].mcpServers`) servers. */
  claude: string;
  /**
   * `mcp.json` in Gyre's data folder (`$GYRE_HOME`, else `$XDG_DATA_HOME/gyre`, else `~/.gyre`):
   * Gyre's own, in the same shape as `~/.claude.json`; `gyre mcp add` writes here.
   */
  gyre: string;
}

/** With `home` given (tests), Gyre's file is `<home>/.gyre/mcp.json`; else in the data folder, as the sessions are. */
export function mcpConfigPaths(cwd: string, home?: string): McpConfigPaths {
  return {
    project: path.join(path.resolve(cwd), ".mcp.json"),
    claude: path.join(home ?? homedir(), ".claude.json"),
    gyre: path.join(home === undefined ? gyreDataFolder() : path.join(home, ".gyre"), "mcp.json"),
  };
}

/**
 * Every server in the MCP config files of the given scopes, lowest precedence first: user
 * (`~/.claude.json`, then `~/.gyre/mcp.json`), project (`.mcp.json`), local (`~/.claude.json`'s,
 * then `~/.gyre/mcp.json`'s entry for the project). A name may appear more than once;
 * {@link byPrecedence} keeps the one that applies. A missing file has no servers; an
 * unreadable one, bad JSON or a wrong shape is a `config_error` naming the file.
 */
export async function readMcpConfigFiles(options: McpConfigFilesOptions): Promise<McpFileServer[]> {
  const scopes = options.sources ?? ["user", "project", "local"];
  const paths = mcpConfigPaths(options.cwd, options.home);
  const wants = (scope: McpConfigScope) => scopes.includes(scope);
  const homeFiles = wants("user") || wants("local");
  const [claude, gyre, project, projectKeys] = await Promise.all([
    homeFiles ? readJsonObject(paths.claude) : undefined,
    homeFiles ? readJsonObject(paths.gyre) : undefined,
    wants("project") ? readJsonObject(paths.project) : undefined,
    wants("local") ? projectKeysOf(options.cwd) : [],
  ]);
  const found: McpFileServer[] = [];
  const add = (scope: McpConfigScope, file: string, value: unknown, where: string) => {
    for (const [name, config] of Object.entries(parseServersRecord(value, file, where))) {
      found.push({ name, scope, path: file, config });
    }
  };
  if (wants("user")) {
    add("user", paths.claude, claude?.mcpServers, "mcpServers");
    add("user", paths.gyre, gyre?.mcpServers, "mcpServers");
  }
  if (wants("project")) add("project", paths.project, project?.mcpServers, "mcpServers");
  if (wants("local")) {
    for (const [file, json] of [
      [paths.claude, claude],
      [paths.gyre, gyre],
    ] as const) {
      const key = projectKeys.find((candidate) => isObject(projectsOf(json)?.[candidate]));
      if (key === undefined) continue;
      const entry = projectsOf(json)?.[key] as Record<string, unknown>;
      add("local", file, entry.mcpServers, `projects[${JSON.stringify(key)}].mcpServers`);
    }
  }
  return found;
}

/** The servers that apply, by name: for a name found more than once, the highest-precedence one. */
export function byPrecedence(found: readonly McpFileServer[]): Map<string, McpFileServer> {
  const servers = new Map<string, McpFileServer>();
  for (const server of found) {
    servers.delete(server.name); // re-inserted last: the order follows precedence too
    servers.set(server.name, server);
  }
  return servers;
}

/**
 * The keys a project may have in `projects` of the home files: its real path (what Gyre
 * writes, and what Claude Code's `process.cwd()` gives) and the path as given.
 */
export async function projectKeysOf(cwd: string): Promise<string[]> {
  const resolved = path.resolve(cwd);
  const real = await realpath(resolved).catch(() => resolved);
  return real === resolved ? [real] : [real, resolved];
}

/** A JSON file whose top level is an object; `undefined` when it does not exist. */
export async function readJsonObject(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new GyreError("config_error", `Cannot read MCP config ${file}: ${errorMessage(error)}`, { cause: error });
  }
  if (text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GyreError("config_error", `MCP config ${file} is not valid JSON: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!isObject(json)) throw new GyreError("config_error", `MCP config ${file} is invalid: not a JSON object`);
  return json;
}

function projectsOf(json: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const projects = json?.projects;
  return isObject(projects) ? projects : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
