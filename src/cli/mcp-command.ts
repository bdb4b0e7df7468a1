import { GyreError } from "../errors/index.js";
import {
  addMcpServer,
  byPrecedence,
  type McpConfigScope,
  type McpFileServer,
  type McpFileServerConfig,
  mcpConfigFileOf,
  mcpConfigPaths,
  parseServerEntry,
  readMcpConfigFiles,
  removeMcpServer,
  SERVER_NAME,
} from "../mcp/index.js";
import { findTrustedFolder } from "../settings/index.js";
import { asksForHelp } from "./interactive.js";
import { parseCommandArgs } from "./parse-command-args.js";

const USAGE = `usage:
  gyre mcp list                      the servers this project's runs get: name, scope, what it runs
  gyre mcp get NAME                  one server's config and the file it is in
  gyre mcp add NAME [-s SCOPE] [-e KEY=VALUE]... -- COMMAND [ARGS...]
  gyre mcp add -t http|sse NAME URL [-s SCOPE] [-H "Name: value"]...
  gyre mcp add-json NAME JSON [-s SCOPE]
  gyre mcp remove NAME [-s SCOPE]
  gyre mcp auth NAME | --url URL     log in to a remote server behind OAuth (gyre mcp auth --help)
  gyre mcp serve [--http PORT] [--tools] [options of gyre run]   Gyre as an MCP server
scopes (-s, --scope): local (default: you, in this project), project (.mcp.json, shared
through the repository), user (you, in every project); -t, --transport: stdio (default), http, sse`;

const SCOPES = ["local", "project", "user"] as const;
const TRANSPORTS = ["stdio", "http", "sse"] as const;

/** A wrong or missing argument: the message and the usage go to stderr, exit code 2. */
class UsageError extends Error {}

/**
 * `gyre mcp …`: the MCP servers of the config files, as `claude mcp …` manages them. Usage
 * errors exit with 2; a malformed config file or a server that is not there with 1.
 */
export async function mcpCommand(args: string[]): Promise<number> {
  const [subcommand, ...rest] = args;
  // `gyre mcp add --help` and the like (auth and serve print their own).
  if (subcommand !== "auth" && subcommand !== "serve" && asksForHelp(rest)) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    switch (subcommand) {
      case "list":
        return await listCommand(rest);
      case "get":
        return await getCommand(rest);
      case "add":
        return await addCommand(rest);
      case "add-json":
        return await addJsonCommand(rest);
      case "remove":
        return await removeCommand(rest);
      case "auth":
        return (await import("./mcp-auth-command.js")).mcpAuthCommand(rest);
      case "serve":
        return await (await import("./mcp-serve-command.js")).mcpServeCommand(rest);
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(`${USAGE}\n`);
        return 0;
      case undefined:
        throw new UsageError("which subcommand?");
      default:
        throw new UsageError(`unknown subcommand "${subcommand}"`);
    }
  } catch (error) {
    if (!(error instanceof UsageError) && !isParseArgsError(error)) throw error;
    process.stderr.write(`gyre mcp: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
}

async function listCommand(args: string[]): Promise<number> {
  parseCommandArgs({ args, options: {} });
  const servers = [...byPrecedence(await readMcpConfigFiles({ cwd: process.cwd() })).values()];
  if (servers.length === 0) {
    write("No MCP servers configured. Add one with: gyre mcp add NAME -- COMMAND [ARGS...]\n");
    return 0;
  }
  const untrusted = await projectUntrusted(servers);
  const width = Math.max(...servers.map((server) => server.name.length));
  for (const server of servers) {
    const note = untrusted && server.scope === "project" ? "  (not started: folder not trusted; gyre trust)" : "";
    write(`${server.name.padEnd(width)}  ${server.scope.padEnd(7)}  ${describe(server.config)}${note}\n`);
  }
  return 0;
}

async function getCommand(args: string[]): Promise<number> {
  const { positionals } = parseCommandArgs({ args, allowPositionals: true, options: {} });
  const name = oneName(positionals, "get");
  const found = (await readMcpConfigFiles({ cwd: process.cwd() })).filter((server) => server.name === name);
  const server = found.at(-1);
  if (!server) throw new GyreError("config_error", `No MCP server named "${name}" (gyre mcp list shows them)`);
  const { config } = server;
  const lines = [`${name}:`, `  scope: ${server.scope} (${server.path})`];
  if (await projectUntrusted([server])) lines.push("  not started: this folder is not trusted (gyre trust)");
  if (config.type === "http" || config.type === "sse") {
    lines.push(`  type: ${config.type}`, `  url: ${config.url}`);
    for (const [header, value] of Object.entries(config.headers ?? {})) lines.push(`  header: ${header}: ${value}`);
  } else {
    lines.push("  type: stdio", `  command: ${config.command}`);
    if (config.args?.length) lines.push(`  args: ${config.args.map(quote).join(" ")}`);
    for (const [key, value] of Object.entries(config.env ?? {})) lines.push(`  env: ${key}=${value}`);
    if (config.cwd) lines.push(`  cwd: ${config.cwd}`);
  }
  if (config.timeout !== undefined) lines.push(`  timeout: ${config.timeout} ms`);
  for (const shadowed of found.slice(0, -1)) lines.push(`  overrides: ${shadowed.scope} (${shadowed.path})`);
  write(`${lines.join("\n")}\n`);
  return 0;
}

async function addCommand(args: string[]): Promise<number> {
  // Everything after `--` is the server's command line, flags included.
  const dashes = args.indexOf("--");
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const { values, positionals } = parseCommandArgs({
    args: own,
    allowPositionals: true,
    options: {
      scope: { type: "string", short: "s" },
      transport: { type: "string", short: "t", default: "stdio" },
      env: { type: "string", short: "e", multiple: true },
      header: { type: "string", short: "H", multiple: true },
    },
  });
  // With `--`, only the name comes before it: `-e A=1 B=2 -- cmd` must not make B=2 the command.
  if (dashes !== -1 && positionals.length > 1) {
    throw new UsageError(`only the server name goes before --, not ${positionals.slice(1).join(" ")}`);
  }
  const [name, ...command] = [...positionals, ...(dashes === -1 ? [] : args.slice(dashes + 1))];
  const scope = scopeOf(values.scope);
  const transport = oneOf(values.transport, TRANSPORTS, "--transport");
  if (name === undefined) throw new UsageError("gyre mcp add needs a server name");
  checkName(name);
  let config: McpFileServerConfig;
  if (transport === "stdio") {
    if (values.header) throw new UsageError("-H/--header is for http and sse servers");
    const [executable, ...rest] = command;
    if (executable === undefined) throw new UsageError(`gyre mcp add ${name} needs a command: -- COMMAND [ARGS...]`);
    const env = values.env && Object.fromEntries(values.env.map((entry) => split(entry, "=", "-e", "KEY=VALUE")));
    config = { type: "stdio", command: executable, args: rest, ...(env && { env }) };
  } else {
    if (values.env) throw new UsageError("-e/--env is for stdio servers");
    const [url, ...extra] = command;
    if (url === undefined) throw new UsageError(`gyre mcp add -t ${transport} ${name} needs a URL`);
    if (extra.length > 0) throw new UsageError(`unexpected arguments after the URL: ${extra.join(" ")}`);
    checkUrl(url);
    const headers =
      values.header && Object.fromEntries(values.header.map((entry) => split(entry, ":", "-H", "Name: value")));
    config = { type: transport, url, ...(headers && { headers }) };
  }
  const file = await addMcpServer(name, config, { scope, cwd: process.cwd() });
  write(`added ${transport} MCP server "${name}" to ${scope} scope: ${file}\n`);
  await noteUntrusted(scope);
  return 0;
}

async function addJsonCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    options: { scope: { type: "string", short: "s" } },
  });
  const [name, text, ...extra] = positionals;
  if (name === undefined || text === undefined || extra.length > 0) {
    throw new UsageError("gyre mcp add-json takes a name and one JSON argument");
  }
  checkName(name);
  const scope = scopeOf(values.scope);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the server config is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = parseServerEntry(json);
  if ("error" in parsed) throw new UsageError(`the server config is invalid: ${parsed.error}`);
  if (parsed.config.type === "http" || parsed.config.type === "sse") checkUrl(parsed.config.url);
  // Written as given: keys Gyre does not use (Claude Code's `oauth`, …) stay for Claude Code.
  const file = await addMcpServer(name, json as McpFileServerConfig, { scope, cwd: process.cwd() });
  write(`added ${parsed.config.type ?? "stdio"} MCP server "${name}" to ${scope} scope: ${file}\n`);
  await noteUntrusted(scope);
  return 0;
}

async function removeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    options: { scope: { type: "string", short: "s" } },
  });
  const name = oneName(positionals, "remove");
  const cwd = process.cwd();
  let scope: McpConfigScope;
  if (values.scope !== undefined) {
    scope = scopeOf(values.scope);
  } else {
    const found = (await readMcpConfigFiles({ cwd })).filter((server) => server.name === name);
    const claude = mcpConfigPaths(cwd).claude;
    const ours = [...new Set(found.filter((server) => server.path !== claude).map((server) => server.scope))];
    if (ours.length > 1) {
      throw new GyreError(
        "config_error",
        `MCP server "${name}" is in several scopes (${ours.join(", ")}): say which with --scope`,
      );
    }
    if (ours.length === 0)
      throw notFound(
        name,
        found.length > 0 ? ` (only in ${claude}, which gyre does not edit; use claude mcp remove)` : "",
      );
    scope = ours[0] as McpConfigScope;
  }
  const target = { scope, cwd };
  if (!(await removeMcpServer(name, target))) throw notFound(name, ` in ${scope} scope (${mcpConfigFileOf(target)})`);
  write(`removed MCP server "${name}" from ${scope} scope: ${mcpConfigFileOf(target)}\n`);
  return 0;
}

function notFound(name: string, where: string): GyreError {
  return new GyreError("config_error", `No MCP server named "${name}"${where}`);
}

/** A project server added in a folder not trusted will not start yet: say so rather than leave it a surprise. */
async function noteUntrusted(scope: McpConfigScope): Promise<void> {
  if (scope !== "project" || (await findTrustedFolder(process.cwd()))) return;
  process.stderr.write(
    "gyre: this folder is not trusted: gyre run starts its .mcp.json servers once it is (gyre trust)\n",
  );
}

/** Whether project-scope servers among `servers` will be skipped by `gyre run` here (folder not trusted). */
async function projectUntrusted(servers: readonly McpFileServer[]): Promise<boolean> {
  if (!servers.some((server) => server.scope === "project")) return false;
  return (await findTrustedFolder(process.cwd())) === undefined;
}

/** What a server runs, or where it is. */
function describe(config: McpFileServerConfig): string {
  if (config.type === "http" || config.type === "sse") return `${config.type} ${config.url}`;
  return [config.command, ...(config.args ?? [])].map(quote).join(" ");
}

function quote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : JSON.stringify(text);
}

function oneName(positionals: string[], subcommand: string): string {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError(`gyre mcp ${subcommand} needs a server name`);
  if (extra.length > 0) throw new UsageError(`gyre mcp ${subcommand} takes one name, not ${positionals.length}`);
  return name;
}

function checkName(name: string): void {
  if (!SERVER_NAME.test(name)) {
    throw new UsageError(`server name "${name}" may only have letters, digits, "_" and "-"`);
  }
}

function checkUrl(url: string): void {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") {
    throw new UsageError(`"${url}" is not an http or https URL`);
  }
}

function scopeOf(value: string | undefined): McpConfigScope {
  return oneOf(value ?? "local", SCOPES, "--scope");
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, not "${value}"`);
  }
  return value as T;
}

/** `KEY=VALUE` or `Name: value` as a pair; the value may be empty, the key may not. */
function split(entry: string, separator: string, flag: string, shape: string): [string, string] {
  const at = entry.indexOf(separator);
  const key = at === -1 ? "" : entry.slice(0, at).trim();
  if (key === "") throw new UsageError(`${flag} takes ${shape}, not "${entry}"`);
  return [key, separator === ":" ? entry.slice(at + 1).trim() : entry.slice(at + 1)];
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

function write(text: string): void {
  process.stdout.write(text);
}
