import { parseCommandArgs } from "./parse-command-args.js";
import { errorMessage, GyreError } from "../errors/index.js";
import {
  authorizeMcpServer,
  byPrecedence,
  defaultOAuthFolder,
  expandServerConfig,
  type McpHttpServerConfig,
  type McpServerConfig,
  McpServersOption,
  type McpSSEServerConfig,
  readMcpConfigArgument,
  readMcpConfigFiles,
} from "../mcp/index.js";

const USAGE =
  "usage: gyre mcp auth NAME [--mcp-config FILE_OR_JSON] | gyre mcp auth --url URL [--name NAME] [--transport http|sse]\n" +
  "         [--client-id ID] [--client-secret SECRET] [--callback-port N] [--scopes A,B] [--timeout SECONDS]";

const DEFAULT_TIMEOUT_SECONDS = 300;

/**
 * `gyre mcp auth`: logs Gyre in to a remote MCP server behind OAuth. It prints the URL to open,
 * waits on a loopback port for the browser to come back, and keeps the tokens in Gyre's user
 * folder, where runs find them (and refresh them). Exit code 0 once authorized.
 */
export async function mcpAuthCommand(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { name, config, timeoutSeconds } = await readTarget(args);
  const write = (text: string) => process.stdout.write(text);
  const result = await authorizeMcpServer(name, config, {
    timeoutMs: timeoutSeconds * 1000,
    onAuthorizationUrl: (url) => {
      write(`Open this URL in a browser to authorize Gyre with MCP server "${name}":\n\n${url.href}\n\n`);
      write(`Waiting for the browser to come back (up to ${timeoutSeconds}s)...\n`);
    },
  });
  const tools = `${result.toolCount} tool${result.toolCount === 1 ? "" : "s"}`;
  write(
    result.outcome === "already"
      ? `MCP server "${name}" is already authorized (${tools}).\n`
      : `Authorized MCP server "${name}" (${tools}). Tokens are kept in ${defaultOAuthFolder()}\n`,
  );
  return 0;
}

interface Target {
  name: string;
  config: McpHttpServerConfig | McpSSEServerConfig;
  timeoutSeconds: number;
}

async function readTarget(args: string[]): Promise<Target> {
  const { values, positionals } = parseAuthArgs(args);
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  // A day at most: a longer timer would overflow and fire at once.
  if (!(timeoutSeconds > 0 && timeoutSeconds <= 86_400)) {
    throw new GyreError(
      "config_error",
      `--timeout must be a number of seconds from 1 to 86400, not "${values.timeout}"`,
    );
  }
  const name = positionals[0] ?? values.name ?? (values.url ? new URL(values.url).host : undefined);
  if (!name) throw new GyreError("config_error", USAGE);
  const configured = values.url ? undefined : await configuredServer(name, values["mcp-config"]);
  const port = values["callback-port"] === undefined ? undefined : Number(values["callback-port"]);
  const oauth = {
    ...(configured?.type === "http" || configured?.type === "sse" ? configured.oauth : undefined),
    ...(values["client-id"] && { clientId: values["client-id"] }),
    ...(values["client-secret"] && { clientSecret: values["client-secret"] }),
    ...(port !== undefined && { callbackPort: port }),
    ...(values.scopes && { scopes: values.scopes.split(",").filter(Boolean) }),
  };
  const candidate = configured ?? { type: values.transport ?? "http", url: values.url };
  const parsed = McpServersOption.safeParse({ [name]: { ...candidate, oauth } });
  const config = parsed.success ? parsed.data[name] : undefined;
  if (config?.type !== "http" && config?.type !== "sse") {
    const why = parsed.success ? "it is not an http or sse server" : parsed.error.issues[0]?.message;
    throw new GyreError("config_error", `Cannot authorize MCP server "${name}": ${why}\n${USAGE}`);
  }
  return { name, config, timeoutSeconds };
}

/**
 * Server `name` of `--mcp-config` when given, else of the config files this project's runs read
 * (`gyre mcp list`), with `${VAR}` expanded.
 */
async function configuredServer(name: string, mcpConfig: string | undefined): Promise<McpServerConfig> {
  if (mcpConfig) {
    const server = (await readMcpConfigArgument(mcpConfig, process.env))[name];
    if (!server) throw new GyreError("config_error", `--mcp-config has no MCP server named "${name}"`);
    return server;
  }
  const server = byPrecedence(await readMcpConfigFiles({ cwd: process.cwd() })).get(name);
  if (!server) {
    throw new GyreError(
      "config_error",
      `No MCP server named "${name}" in this project's config files (gyre mcp list); give --url URL or --mcp-config`,
    );
  }
  const expanded = expandServerConfig(server.config, process.env);
  if (expanded.missing.length > 0) {
    const names = expanded.missing.map((missing) => `\${${missing}}`).join(", ");
    throw new GyreError("config_error", `MCP server "${name}" in ${server.path} uses ${names}, which is not set`);
  }
  return expanded.config;
}

function parseAuthArgs(args: string[]) {
  try {
    return parseCommandArgs({
      args,
      allowPositionals: true,
      options: {
        url: { type: "string" },
        name: { type: "string" },
        transport: { type: "string" },
        "mcp-config": { type: "string" },
        "client-id": { type: "string" },
        "client-secret": { type: "string" },
        "callback-port": { type: "string" },
        scopes: { type: "string" },
        timeout: { type: "string" },
      },
    });
  } catch (error) {
    throw new GyreError("config_error", `${errorMessage(error)}\n${USAGE}`, { cause: error });
  }
}
