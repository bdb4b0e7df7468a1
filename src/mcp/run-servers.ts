import type { McpCommandSandbox } from "./connect.js";
import { GyreError } from "../errors/index.js";
import { findTrustedFolder, type IgnoredProjectSettings, type LoadedSettings } from "../settings/index.js";
import type { McpServerConfig } from "./config.js";
import type { McpFileServerConfig } from "./config-file-schema.js";
import {
  byPrecedence,
  type McpConfigScope,
  type McpFileServer,
  projectKeysOf,
  readMcpConfigFiles,
} from "./config-files.js";
import { expandServerConfig } from "./expand-env.js";
import type { McpCallLimits } from "./call-limits.js";
import type { OnElicitation } from "./elicitation.js";
import { connectMcpServers } from "./lazy.js";
import type { McpServers } from "./manager.js";

export interface RunMcpServersInput {
  /** The `mcpServers` option: wins over every file on a name clash. */
  servers?: Record<string, McpServerConfig>;
  /** `strictMcpConfig`: only `servers`, no files. */
  strict?: boolean;
  /** Which scopes' files to read (`settingSources`); none: no files. */
  sources: readonly McpConfigScope[];
  /** `requireProjectTrust`: a project's `.mcp.json` servers start only in a trusted folder. */
  requireTrust: boolean;
  cwd: string;
  /** What `${VAR}` in files expands from: the run's environment. */
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  /** Names of the run's other tools (an MCP tool never shadows one). */
  takenNames?: Iterable<string>;
  /** Home folder of the user and local files (default: the OS home). */
  home?: string;
  /** The run's settings: `.mcp.json` servers they disable (`disabledMcpjsonServers`) are not started. */
  settings?: Promise<LoadedSettings>;
  /** Output and time limits of MCP tool calls. */
  limits?: McpCallLimits;
  /** Answers servers' requests for user input. */
  onElicitation?: OnElicitation;
  /** The run's OS sandbox, for stdio servers with `sandbox: true`. */
  sandbox?: Promise<McpCommandSandbox | undefined>;
}

export interface RunMcpServers {
  /** The connected (or failed) servers; absent when the run has none, and the MCP SDK was never loaded. */
  servers?: McpServers;
  /** The `.mcp.json` servers of an untrusted folder that were not started. */
  ignored?: IgnoredProjectSettings;
}

/**
 * A run's MCP servers: the `mcpServers` option over those of the config files (local >
 * project > user), with `${VAR}` expanded, all connected in parallel. Reading the files
 * overlaps the SDK's import when the option has servers. A server whose variable is unset is
 * `failed` with a `config_error` naming the variable and the file; the others go on. A
 * malformed file rejects with a `config_error`.
 */
export async function startRunMcpServers(input: RunMcpServersInput): Promise<RunMcpServers> {
  const optionServers = input.servers ?? {};
  // The option's servers will connect whatever the files say: the SDK loads while they are read.
  if (Object.keys(optionServers).length > 0) void import("./manager.js").catch(() => {});
  const { found, ignored } = await readFileServers(input);
  const servers: Record<string, McpServerConfig | GyreError> = {};
  for (const [name, server] of byPrecedence(found)) {
    if (!Object.hasOwn(optionServers, name)) servers[name] = resolveFileServer(server, input.env);
  }
  Object.assign(servers, optionServers);
  if (Object.keys(servers).length === 0) return ignored ? { ignored } : {};
  const connected = await connectMcpServers(servers, {
    cwd: input.cwd,
    signal: input.signal,
    takenNames: input.takenNames,
    ...(input.limits && { limits: input.limits }),
    ...(input.onElicitation && { onElicitation: input.onElicitation }),
    ...(input.sandbox && { sandbox: input.sandbox }),
  });
  return { servers: connected, ...(ignored && { ignored }) };
}

/**
 * The file servers of the run's scopes, less the `.mcp.json` servers the settings disable;
 * a project's are dropped (and reported) when its folder must be and is not trusted.
 */
async function readFileServers(
  input: RunMcpServersInput,
): Promise<{ found: McpFileServer[]; ignored?: IgnoredProjectSettings }> {
  if (input.strict || input.sources.length === 0) return { found: [] };
  const found = await readMcpConfigFiles({ cwd: input.cwd, home: input.home, sources: input.sources });
  const disabled = found.some((server) => server.scope === "project") ? await disabledProjectServers(input) : [];
  const enabled = found.filter((server) => server.scope !== "project" || !disabled.includes(server.name));
  const fromRepository = enabled.filter((server) => server.scope === "project");
  if (!input.requireTrust || fromRepository.length === 0) return { found: enabled };
  if (await findTrustedFolder(input.cwd, { home: input.home })) return { found: enabled };
  const [folder] = await projectKeysOf(input.cwd);
  const file = fromRepository[0]?.path as string;
  return {
    found: enabled.filter((server) => server.scope !== "project"),
    ignored: {
      folder: folder as string,
      files: [{ path: file, ignored: fromRepository.map((s) => `mcpServers.${s.name}`) }],
    },
  };
}

/**
 * Claude Code's `disabledMcpjsonServers`, from every settings file that has it: a list that
 * only takes servers away, so the lists of all files add up rather than the last one winning.
 */
async function disabledProjectServers(input: RunMcpServersInput): Promise<string[]> {
  const settings = await input.settings;
  return (settings?.files ?? []).flatMap((file) => {
    const list = file.settings.disabledMcpjsonServers;
    return Array.isArray(list) ? list.filter((name): name is string => typeof name === "string") : [];
  });
}

/** A file's server with its variables expanded, or the error it is reported `failed` with. */
function resolveFileServer(server: McpFileServer, env: RunMcpServersInput["env"]): McpServerConfig | GyreError {
  return resolveServerEntry(server.config, env, `MCP server "${server.name}" in ${server.path}`);
}

/**
 * A server entry written in a file (`.mcp.json`, an agent file) with `${VAR}` expanded from
 * `env`, or the `config_error` it fails with: a variable unset without default, a remote
 * server's URL that is not http(s). `where` names the entry in the error.
 */
export function resolveServerEntry(
  entry: McpFileServerConfig,
  env: RunMcpServersInput["env"],
  where: string,
): McpServerConfig | GyreError {
  const { config, missing } = expandServerConfig(entry, env);
  if (missing.length > 0) {
    const names = missing.map((name) => `\${${name}}`).join(", ");
    return new GyreError(
      "config_error",
      `${where} uses ${names}, which is not set and has no default (\${NAME:-default})`,
    );
  }
  const badUrl = remoteUrlProblem(config);
  return badUrl ? new GyreError("config_error", `${where}: ${badUrl}`) : config;
}

function remoteUrlProblem(config: McpFileServerConfig): string | undefined {
  if (config.type !== "http" && config.type !== "sse") return undefined;
  const url = URL.canParse(config.url) ? new URL(config.url) : undefined;
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return undefined;
  return `url must be an http or https URL, not ${JSON.stringify(config.url)}`;
}
