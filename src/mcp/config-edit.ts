import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { GyreError } from "../errors/index.js";
import { atomicWriteFile } from "../files/index.js";
import type { McpFileServerConfig } from "./config-file-schema.js";
import { isObject, type McpConfigScope, mcpConfigPaths, projectKeysOf, readJsonObject } from "./config-files.js";

/** Which file `gyre mcp add`/`remove` edit: a scope, for the project in `cwd`. */
export interface McpConfigTarget {
  scope: McpConfigScope;
  cwd: string;
  /** Default: the OS home (inject it in tests). */
  home?: string;
}

/**
 * Where each scope is written (and read back, see `readMcpConfigFiles`): `project` →
 * `<cwd>/.mcp.json` `mcpServers`; `user` → `~/.gyre/mcp.json` `mcpServers`; `local` →
 * `~/.gyre/mcp.json` `projects[<real cwd>].mcpServers`, the shape of Claude Code's `~/.claude.json`.
 * Claude Code's own file is read, never written.
 */
export function mcpConfigFileOf(target: McpConfigTarget): string {
  const paths = mcpConfigPaths(target.cwd, target.home);
  return target.scope === "project" ? paths.project : paths.gyre;
}

/**
 * Adds server `name` to the target's file, keeping every other key of the file. A name the
 * scope already has is a `config_error` (remove it first), as with `claude mcp add`.
 * Returns the file written.
 */
export async function addMcpServer(
  name: string,
  config: McpFileServerConfig,
  target: McpConfigTarget,
): Promise<string> {
  return editServers(target, (servers, file) => {
    if (Object.hasOwn(servers, name)) {
      throw new GyreError("config_error", `MCP server "${name}" already exists in ${target.scope} scope (${file})`);
    }
    servers[name] = config;
    return true;
  });
}

/** Removes server `name` from the target's file; false (nothing written) when it is not there. */
export async function removeMcpServer(name: string, target: McpConfigTarget): Promise<boolean> {
  let removed = false;
  await editServers(target, (servers) => {
    removed = Object.hasOwn(servers, name);
    delete servers[name];
    return removed;
  });
  return removed;
}

/**
 * Reads the target's file (a malformed one is a `config_error` and is left as it is), lets
 * `change` edit its `mcpServers` record, and writes the whole file back atomically when
 * `change` says it changed something.
 */
async function editServers(
  target: McpConfigTarget,
  change: (servers: Record<string, unknown>, file: string) => boolean,
): Promise<string> {
  const file = mcpConfigFileOf(target);
  const json = (await readJsonObject(file)) ?? {};
  const holder = target.scope === "local" ? await projectEntry(json, target.cwd, file) : json;
  const servers = holder.mcpServers ?? {};
  if (!isObject(servers))
    throw new GyreError("config_error", `MCP config ${file} is invalid: mcpServers must be an object`);
  holder.mcpServers = servers;
  if (!change(servers, file)) return file;
  await writeJson(file, json, target.scope !== "project");
  return file;
}

/** `json.projects[<cwd>]`, created when missing; an existing entry under the path as given is used too. */
async function projectEntry(
  json: Record<string, unknown>,
  cwd: string,
  file: string,
): Promise<Record<string, unknown>> {
  const projects = json.projects ?? {};
  if (!isObject(projects))
    throw new GyreError("config_error", `MCP config ${file} is invalid: projects must be an object`);
  json.projects = projects;
  const keys = await projectKeysOf(cwd);
  const key = keys.find((candidate) => Object.hasOwn(projects, candidate)) ?? (keys[0] as string);
  const entry = projects[key] ?? {};
  if (!isObject(entry)) {
    throw new GyreError(
      "config_error",
      `MCP config ${file} is invalid: projects[${JSON.stringify(key)}] must be an object`,
    );
  }
  projects[key] = entry;
  return entry;
}

/**
 * Whole-file atomic replace. A new file in the home folder is made private first (0600):
 * its headers and env may hold tokens. A project's `.mcp.json` is meant to be shared.
 */
async function writeJson(file: string, json: unknown, homeFile: boolean): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, ...(homeFile && { mode: 0o700 }) });
  if (homeFile) await (await open(file, "a", 0o600)).close();
  await atomicWriteFile(file, Buffer.from(`${JSON.stringify(json, null, 2)}\n`), { toolName: "gyre mcp" });
}
