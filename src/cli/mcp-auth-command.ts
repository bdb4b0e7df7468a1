import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { errorMessage, GyreError } from "../errors/index.js";
import {
  authorizeMcpServer,
  defaultOAuthFolder,
  type McpHttpServerConfig,
  McpServersOption,
  type McpSSEServerConfig,
} from "../mcp/index.js";

const USAGE =
  "usage: gyre mcp auth NAME --mcp-config FILE | gyre mcp auth --url URL [--name NAME] [--transport http|sse]\n" +
  "         [--client-id ID] [--client-secret SECRET] [--callback-port N] [--scopes A,B] [--timeout SECONDS]";

const DEFAULT_TIMEOUT_SECONDS = 300;

/**
 * `gyre mcp auth`: logs Gyre in to a remote MCP server behind OAuth. It prints the URL to open,
 * waits on a loopback port for the browser to come back, and keeps the tokens in Gyre's user
 * folder, where runs find them (and refresh them). Exit code 0 once authorized.
 */
export async function mcpAuthCommand(args: string[]): Promise<number> {
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
  const fromFile = values["mcp-config"] ? await serverFromFile(values["mcp-config"], name) : undefined;
  const port = values["callback-port"] === undefined ? undefined : Number(values["callback-port"]);
  const oauth = {
    ...fromFile?.oauth,
    ...(values["client-id"] && { clientId: values["client-id"] }),
    ...(values["client-secret"] && { clientSecret: values["client-secret"] }),
    ...(port !== undefined && { callbackPort: port }),
    ...(values.scopes && { scopes: values.scopes.split(",").filter(Boolean) }),
  };
  const candidate = fromFile ?? { type: values.transport ?? "http", url: values.url };
  const parsed = McpServersOption.safeParse({ [name]: { ...candidate, oauth } });
  const config = parsed.success ? parsed.data[name] : undefined;
  if (config?.type !== "http" && config?.type !== "sse") {
    const why = parsed.success ? "it is not an http or sse server" : parsed.error.issues[0]?.message;
    throw new GyreError("config_error", `Cannot authorize MCP server "${name}": ${why}\n${USAGE}`);
  }
  return { name, config, timeoutSeconds };
}

/** The server `name` of an `.mcp.json`-style file (`{ "mcpServers": { name: config } }`). */
async function serverFromFile(path: string, name: string): Promise<Partial<McpHttpServerConfig>> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new GyreError("config_error", `Cannot read --mcp-config ${path}: ${errorMessage(error)}`, { cause: error });
  }
  const servers = (json as { mcpServers?: Record<string, unknown> } | null)?.mcpServers;
  const server = servers?.[name];
  if (typeof server !== "object" || server === null) {
    throw new GyreError("config_error", `${path} has no MCP server named "${name}" under "mcpServers"`);
  }
  return server as Partial<McpHttpServerConfig>;
}

function parseAuthArgs(args: string[]) {
  try {
    return parseArgs({
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
