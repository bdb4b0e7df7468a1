import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ParseArgsConfig } from "node:util";
import { errorMessage, GyreError } from "../errors/index.js";
import { MODEL_ALIASES, type QueryOptions } from "../run/index.js";
import { PermissionMode } from "../protocol/index.js";
import { providerEnvironment } from "./provider-keys.js";

/** The flags that set up the agent, shared by `gyre run` and `gyre mcp serve`. */
export const AGENT_SETUP_OPTIONS = {
  model: { type: "string" },
  "fallback-model": { type: "string" },
  "max-turns": { type: "string" },
  "max-budget-usd": { type: "string" },
  "max-budget-tokens": { type: "string" },
  "max-retries": { type: "string" },
  cwd: { type: "string" },
  "system-prompt": { type: "string" },
  "append-system-prompt": { type: "string" },
  "allowed-tools": { type: "string" },
  "disallowed-tools": { type: "string" },
  "permission-mode": { type: "string" },
  "add-dir": { type: "string", multiple: true },
  "setting-sources": { type: "string", default: "user,project,local" },
  "trust-project": { type: "boolean", default: false },
  "no-session-persistence": { type: "boolean", default: false },
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean", default: false },
  "plugin-dir": { type: "string", multiple: true },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

/** The options of `gyre run` (and `gyre -p`), as node:util's parseArgs reads them. */
export const RUN_OPTIONS = {
  ...AGENT_SETUP_OPTIONS,
  "output-format": { type: "string", default: "text" },
  "input-format": { type: "string", default: "text" },
  agent: { type: "string" },
  agents: { type: "string" },
  tools: { type: "string" },
  "include-partial-messages": { type: "boolean", default: false },
  "json-schema": { type: "string" },
  "dangerously-skip-permissions": { type: "boolean", default: false },
  settings: { type: "string" },
  "loop-control": { type: "boolean", default: false },
  sandbox: { type: "boolean", default: false },
  resume: { type: "string", short: "r" },
  continue: { type: "boolean", short: "c", default: false },
  "fork-session": { type: "boolean", default: false },
  "session-id": { type: "string" },
  "defer-permissions": { type: "boolean", default: false },
  approve: { type: "string", multiple: true },
  answer: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  "deny-message": { type: "string" },
  verbose: { type: "boolean", default: false },
  debug: { type: "boolean", default: false },
  // `gyre run -p` is what `gyre -p` already means: accepted, changes nothing.
  print: { type: "boolean", short: "p", default: false },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The loop's options from the flags that set up the agent (not how the run is printed or fed).
 * Every flag problem is a `config_error` raised before the run starts.
 */
export async function queryOptionsOf(
  values: Record<string, string | boolean | string[] | undefined>,
): Promise<QueryOptions> {
  const text = (name: string) => values[name] as string | undefined;
  const flag = (name: string) => values[name] === true;
  const many = (name: string) => values[name] as string[] | undefined;
  const approvals = approvalsFrom(many("approve"), many("deny"), text("deny-message"), many("answer"));
  if (approvals && !text("resume")) {
    throw new GyreError(
      "config_error",
      "--approve, --deny and --answer answer a paused session: add --resume SESSION_ID",
    );
  }
  const sessionId = text("session-id");
  if (sessionId !== undefined && !UUID.test(sessionId))
    throw new GyreError("config_error", `--session-id must be a UUID, not "${sessionId}"`);
  if (sessionId !== undefined && (text("resume") !== undefined || flag("continue")) && !flag("fork-session")) {
    throw new GyreError(
      "config_error",
      "--session-id names a new session: with --resume or --continue, add --fork-session",
    );
  }
  const schema = text("json-schema");
  const agents = text("agents");
  const settings = text("settings");
  return {
    env: providerEnvironment(),
    model: modelOf(text("model")),
    fallbackModel: modelOf(text("fallback-model")),
    maxTurns: number(text("max-turns"), "--max-turns"),
    maxBudgetUsd: number(text("max-budget-usd"), "--max-budget-usd"),
    maxBudgetTokens: number(text("max-budget-tokens"), "--max-budget-tokens"),
    maxRetries: number(text("max-retries"), "--max-retries"),
    cwd: text("cwd"),
    agent: text("agent"),
    ...(agents !== undefined && { agents: (await jsonArgument(agents, "--agents")) as QueryOptions["agents"] }),
    allowedTools: list(text("allowed-tools")),
    disallowedTools: list(text("disallowed-tools")),
    tools: list(text("tools")),
    ...(schema !== undefined && {
      outputFormat: { type: "json_schema", schema: await jsonArgument(schema, "--json-schema") },
    }),
    permissionMode: skipPermissions(flag("dangerously-skip-permissions"), permissionMode(text("permission-mode"))),
    loopControlTools: flag("loop-control"),
    additionalDirectories: many("add-dir"),
    ...(settings !== undefined && { settings: settingsArgument(settings) }),
    settingSources: list(text("setting-sources")) as QueryOptions["settingSources"],
    // A flag, not an env var or a settings key: a repository cannot set it for itself.
    requireProjectTrust: !flag("trust-project"),
    ...(many("mcp-config") && { mcpServers: await mcpServersOf(many("mcp-config") ?? []) }),
    strictMcpConfig: flag("strict-mcp-config"),
    ...(many("plugin-dir") && { plugins: pluginDirs(many("plugin-dir") ?? []) }),
    // On top of the settings files' sandbox block, which still sets domains, paths, exclusions.
    ...(flag("sandbox") && { sandbox: { enabled: true } }),
    resume: text("resume"),
    continue: flag("continue"),
    forkSession: flag("fork-session"),
    ...(sessionId !== undefined && { sessionId }),
    persistSession: !flag("no-session-persistence"),
    ...(approvals && { approvals }),
    systemPrompt: text("system-prompt") ?? {
      type: "preset",
      preset: "gyre",
      append: text("append-system-prompt"),
    },
  };
}

/** `--plugin-dir DIR` (repeatable): plugin folders, relative to where gyre was started (not `--cwd`), as claude's. */
export function pluginDirs(dirs: readonly string[]): NonNullable<QueryOptions["plugins"]> {
  return dirs.map((dir) => ({ type: "local" as const, path: path.resolve(dir) }));
}

/** `--model sonnet|opus|haiku`: Claude Code's aliases, to the current models (as agent files take them). */
function modelOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : (MODEL_ALIASES[value] ?? value);
}

/** `--dangerously-skip-permissions` is `--permission-mode bypassPermissions`; naming another mode as well is a mistake. */
function skipPermissions(skip: boolean, mode: PermissionMode | undefined): PermissionMode | undefined {
  if (!skip) return mode;
  if (mode !== undefined && mode !== "bypassPermissions") {
    throw new GyreError("config_error", `--dangerously-skip-permissions contradicts --permission-mode ${mode}`);
  }
  return "bypassPermissions";
}

/** `--settings`: JSON text is the settings themselves, anything else a file's path (from the current folder). */
function settingsArgument(value: string): string | Record<string, unknown> {
  if (!value.trim().startsWith("{")) return path.resolve(value);
  return parseJsonObject(value, "--settings");
}

/** A flag that takes JSON, as claude's: the JSON text itself (starting with `{`), or a file that holds it. */
export async function jsonArgument(value: string, flag: string): Promise<Record<string, unknown>> {
  if (value.trim().startsWith("{")) return parseJsonObject(value, flag);
  let text: string;
  try {
    text = await readFile(value, "utf8");
  } catch (error) {
    throw new GyreError("config_error", `${flag}: cannot read ${value}: ${errorMessage(error)}`, { cause: error });
  }
  return parseJsonObject(text, `${flag} ${value}`);
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GyreError("config_error", `${what} is not valid JSON: ${errorMessage(error)}`, { cause: error });
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new GyreError("config_error", `${what} must be a JSON object`);
  return json as Record<string, unknown>;
}

/** The servers of every `--mcp-config`; a later one wins on a name clash. */
export async function mcpServersOf(values: string[]): Promise<NonNullable<QueryOptions["mcpServers"]>> {
  const { readMcpConfigArgument } = await import("../mcp/index.js");
  const servers: NonNullable<QueryOptions["mcpServers"]> = {};
  for (const value of values) Object.assign(servers, await readMcpConfigArgument(value, process.env));
  return servers;
}

/**
 * `--approve A,B --deny C --answer 'D={"Question?":"Answer"}'` as `approvals` by tool_use id;
 * undefined when none is given. An answer approves an AskUserQuestion call with its answers.
 */
function approvalsFrom(
  approve: string[] | undefined,
  deny: string[] | undefined,
  denyMessage: string | undefined,
  answer: string[] | undefined,
): QueryOptions["approvals"] {
  if (!approve && !deny && !answer) return undefined;
  const approvals: NonNullable<QueryOptions["approvals"]> = {};
  for (const id of (approve ?? []).flatMap((value) => list(value) ?? [])) approvals[id] = { behavior: "allow" };
  for (const value of answer ?? []) {
    const [id, answers] = answerOf(value);
    if (approvals[id]) throw new GyreError("config_error", `${id} is approved and answered`);
    approvals[id] = { behavior: "allow", updatedInput: { answers } };
  }
  for (const id of (deny ?? []).flatMap((value) => list(value) ?? [])) {
    if (approvals[id]) throw new GyreError("config_error", `${id} is both approved and denied`);
    approvals[id] = { behavior: "deny", message: denyMessage ?? "The person denied this call." };
  }
  return approvals;
}

/** `ID={"Question?":"Answer"}`: the call's id and the answers, each a string, keyed by question text. */
function answerOf(value: string): [string, Record<string, string>] {
  const at = value.indexOf("=");
  const id = value.slice(0, at).trim();
  let answers: unknown;
  try {
    answers = at > 0 ? JSON.parse(value.slice(at + 1)) : undefined;
  } catch {
    answers = undefined;
  }
  const valid =
    typeof answers === "object" &&
    answers !== null &&
    !Array.isArray(answers) &&
    Object.values(answers).every((answer) => typeof answer === "string");
  if (!id || !valid) {
    throw new GyreError(
      "config_error",
      `--answer takes ID={"question":"answer",...} (a JSON object of strings), not ${JSON.stringify(value)}`,
    );
  }
  return [id, answers as Record<string, string>];
}

export function permissionMode(value: string | undefined): PermissionMode | undefined {
  if (value === undefined) return undefined;
  const parsed = PermissionMode.safeParse(value);
  if (!parsed.success) {
    throw new GyreError(
      "config_error",
      `--permission-mode must be one of ${PermissionMode.options.join(", ")}, not "${value}"`,
    );
  }
  return parsed.data;
}

export function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0)
    throw new GyreError("config_error", `${flag} must be a non-negative number`);
  return parsed;
}

export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}
