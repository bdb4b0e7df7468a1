import path from "node:path";
import { GyreError } from "../errors/index.js";
import type { McpServerConfig } from "./config.js";
import { parseServersRecord } from "./config-file-schema.js";
import { isObject, readJsonObject } from "./config-files.js";
import { expandServerConfig } from "./expand-env.js";

/**
 * The servers of one `--mcp-config` argument, as Claude Code takes it: a file, or the JSON
 * itself (`{"mcpServers": {…}}`), with `${VAR}` expanded from `env`. The person named it on
 * the command line, so every problem, an unset variable too, is a `config_error` that stops
 * the run before it starts. Relative paths are read against `cwd`.
 */
export async function readMcpConfigArgument(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): Promise<Record<string, McpServerConfig>> {
  const inline = value.trim().startsWith("{");
  const source = inline ? "--mcp-config JSON" : path.resolve(cwd, value);
  const json = inline ? parseInline(value) : await readJsonObject(source);
  if (json === undefined) throw new GyreError("config_error", `--mcp-config: no such file ${source}`);
  if (!isObject(json.mcpServers)) {
    throw new GyreError("config_error", `--mcp-config: ${source} has no "mcpServers" object`);
  }
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, config] of Object.entries(parseServersRecord(json.mcpServers, source, "mcpServers"))) {
    const expanded = expandServerConfig(config, env);
    if (expanded.missing.length > 0) {
      const names = expanded.missing.map((missing) => `\${${missing}}`).join(", ");
      throw new GyreError("config_error", `MCP server "${name}" in ${source} uses ${names}, which is not set`);
    }
    servers[name] = expanded.config;
  }
  return servers;
}

function parseInline(text: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GyreError("config_error", `--mcp-config is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!isObject(json)) throw new GyreError("config_error", "--mcp-config JSON must be an object");
  return json;
}
