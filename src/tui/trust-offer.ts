import { homedir } from "node:os";
import path from "node:path";
import { loadAgentFiles } from "../agents/index.js";
import { errorMessage } from "../errors/index.js";
import { type McpFileServerConfig, readMcpConfigFiles } from "../mcp/index.js";
import {
  findTrustedFolder,
  type IgnoredProjectSettings,
  readProjectSettingsFiles,
  realOrResolved,
} from "../settings/index.js";

/** One settings file of the folder, in what it asks for beyond deny and ask rules. */
export interface OfferedSettingsFile {
  /** Relative to the folder: `.gyre/settings.json`. */
  file: string;
  /** Its `permissions.allow` rules. */
  allow: string[];
  /** Its hooks, one a line: `PreToolUse [Bash] ./check.sh`. */
  hooks: string[];
  /** The other keys that apply only in a trusted folder (`env`, `permissions.defaultMode`, …). */
  other: string[];
}

/** What a folder that is not trusted asks for: what trusting it would apply. */
export interface TrustOffer {
  /** The folder trusting covers (real path). */
  folder: string;
  settings: OfferedSettingsFile[];
  /** `.mcp.json`'s servers, with what each starts (a command line or a URL). */
  mcpServers: Array<{ name: string; runs: string }>;
  /** The names of the project's agent files (`.claude/agents`, `.gyre/agents`). */
  agents: string[];
  /** Files that could not be read, each with why. */
  problems: string[];
  /** The same in the shape of the run's `ignored_settings`: file paths and keys. */
  ignored: IgnoredProjectSettings;
}

export interface TrustOfferOptions {
  cwd: string;
  /** Home of the trust record and the user's files; defaults to the OS home. */
  home?: string;
  /** The run's `settingSources`: only the project's scopes among them are looked at. */
  sources: ReadonlyArray<"user" | "project" | "local">;
}

/**
 * What trusting `cwd` would apply, read from its files: its project and local settings (allow
 * rules, hooks, env, …), `.mcp.json`'s servers and its agent files. `undefined` when the folder
 * is trusted (itself or through a parent) or asks for nothing a folder that is not trusted
 * lacks (no files, or only deny and ask rules, which apply anyway). A file that cannot be read
 * is listed in `problems`, never thrown: the run reports it in its own words.
 */
export async function trustOfferFor(options: TrustOfferOptions): Promise<TrustOffer | undefined> {
  const home = options.home ?? homedir();
  const project = options.sources.includes("project");
  if (!project && !options.sources.includes("local")) return undefined;
  if (await findTrustedFolder(options.cwd, { home: options.home })) return undefined;
  const folder = await realOrResolved(options.cwd);
  const problems: string[] = [];
  const failed = <T>(fallback: T) => {
    return (error: unknown): T => {
      problems.push(errorMessage(error));
      return fallback;
    };
  };
  const [settingsFiles, servers, agents] = await Promise.all([
    readProjectSettingsFiles({ cwd: options.cwd, home, scopes: options.sources }).catch(failed([])),
    project ? readMcpConfigFiles({ cwd: options.cwd, home, sources: ["project"] }).catch(failed([])) : [],
    project ? loadAgentFiles({ cwd: options.cwd, home, scopes: ["project"] }).catch(failed(new Map())) : new Map(),
  ]);
  const asking = settingsFiles.filter((file) => file.needsTrust.length > 0);
  const offer: TrustOffer = {
    folder,
    settings: asking.map((file) => ({
      file: path.relative(path.resolve(options.cwd), file.path),
      allow: file.needsTrust.includes("permissions.allow") ? (file.settings.permissions?.allow ?? []) : [],
      hooks: file.needsTrust.includes("hooks") ? hookLines(file.settings.hooks) : [],
      other: file.needsTrust.filter((key) => key !== "permissions.allow" && key !== "hooks"),
    })),
    mcpServers: servers.map((server) => ({ name: server.name, runs: whatRuns(server.config) })),
    agents: [...agents.keys()],
    problems,
    ignored: {
      folder,
      files: [
        ...asking.map((file) => ({ path: file.path, ignored: file.needsTrust })),
        ...(servers[0]
          ? [{ path: servers[0].path, ignored: servers.map((server) => `mcpServers.${server.name}`) }]
          : []),
      ],
    },
  };
  const asks = offer.settings.length > 0 || offer.mcpServers.length > 0 || offer.agents.length > 0;
  return asks ? offer : undefined;
}

/**
 * The offer as lines to show under the question, indented by what they belong to: each
 * settings file with its allow rules, hooks and other keys, then the MCP servers, the agents,
 * and files that could not be read.
 */
export function describeOffer(offer: TrustOffer): string[] {
  const lines: string[] = [];
  for (const file of offer.settings) {
    lines.push(file.file);
    if (file.allow.length > 0) lines.push(`  allow: ${file.allow.join(", ")}`);
    for (const hook of file.hooks) lines.push(`  hook: ${hook}`);
    if (file.other.length > 0) lines.push(`  also: ${file.other.join(", ")}`);
  }
  if (offer.mcpServers.length > 0) {
    lines.push("MCP servers (.mcp.json)");
    for (const server of offer.mcpServers) lines.push(`  ${server.name}: ${server.runs}`);
  }
  if (offer.agents.length > 0) lines.push(`agents: ${offer.agents.join(", ")}`);
  for (const problem of offer.problems) lines.push(`cannot read: ${problem}`);
  return lines;
}

/** One phrase for what an untrusted folder's files ask for: `.gyre/settings.json (permissions.allow), …`. */
export function summarizeOffer(offer: TrustOffer): string {
  const parts = offer.settings.map(
    (file) =>
      `${file.file} (${[...(file.allow.length > 0 ? ["allow rules"] : []), ...(file.hooks.length > 0 ? ["hooks"] : []), ...file.other].join(", ")})`,
  );
  if (offer.mcpServers.length > 0)
    parts.push(`the MCP servers of .mcp.json (${offer.mcpServers.map((server) => server.name).join(", ")})`);
  if (offer.agents.length > 0) parts.push(`the agent files (${offer.agents.join(", ")})`);
  return parts.join(", ");
}

/** The command hooks of a settings file's raw `hooks`: `Event [matcher] command`. */
function hookLines(hooks: unknown): string[] {
  if (!isRecord(hooks)) return [];
  const lines: string[] = [];
  for (const [event, matchers] of Object.entries(hooks)) {
    for (const entry of Array.isArray(matchers) ? matchers : []) {
      if (!isRecord(entry)) continue;
      const matcher = typeof entry.matcher === "string" && entry.matcher !== "" ? ` [${entry.matcher}]` : "";
      for (const hook of Array.isArray(entry.hooks) ? entry.hooks : []) {
        const command = isRecord(hook) && typeof hook.command === "string" ? hook.command : JSON.stringify(hook);
        lines.push(`${event}${matcher} ${command}`);
      }
    }
  }
  return lines;
}

/** What a server entry starts: its command line, or the URL it connects to. */
function whatRuns(config: McpFileServerConfig): string {
  if ("url" in config) return config.url;
  return [config.command, ...(config.args ?? [])].join(" ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
