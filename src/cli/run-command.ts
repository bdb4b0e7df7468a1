import { parseCommandArgs } from "./parse-command-args.js";
import { GyreError } from "../errors/index.js";
import type { QueryOptions } from "../loop/index.js";
import { query } from "../loop/index.js";
import { type PendingToolCall, PermissionMode, type SDKMessage } from "../protocol/index.js";
import { describeIgnoredSettings } from "../settings/index.js";
import { elicitationAsker } from "./ask-elicitation.js";
import { askPerson } from "./ask-person.js";
import { PromptQueue } from "./prompt-queue.js";

const FORMATS = ["text", "json", "stream-json"] as const;
/** What `gyre run --output-format` prints (not `outputFormat`, the structured-output option). */
type PrintFormat = (typeof FORMATS)[number];

/** Exit code of a run that paused on deferred approvals (`requires_action`): resume it to go on. */
export const EXIT_REQUIRES_ACTION = 3;

/**
 * `gyre run "<prompt>"`: print mode. Exit code 0 on success, 1 when the result is an error,
 * {@link EXIT_REQUIRES_ACTION} when the run waits on approvals (`--defer-permissions`).
 */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    options: {
      "output-format": { type: "string", default: "text" },
      model: { type: "string" },
      "fallback-model": { type: "string" },
      "max-turns": { type: "string" },
      "max-budget-usd": { type: "string" },
      "max-budget-tokens": { type: "string" },
      "max-retries": { type: "string" },
      cwd: { type: "string" },
      "system-prompt": { type: "string" },
      agent: { type: "string" },
      "append-system-prompt": { type: "string" },
      "allowed-tools": { type: "string" },
      "disallowed-tools": { type: "string" },
      tools: { type: "string" },
      "include-partial-messages": { type: "boolean", default: false },
      "permission-mode": { type: "string" },
      "add-dir": { type: "string", multiple: true },
      "setting-sources": { type: "string", default: "user,project,local" },
      "trust-project": { type: "boolean", default: false },
      "mcp-config": { type: "string", multiple: true },
      "strict-mcp-config": { type: "boolean", default: false },
      "loop-control": { type: "boolean", default: false },
      sandbox: { type: "boolean", default: false },
      resume: { type: "string", short: "r" },
      continue: { type: "boolean", short: "c", default: false },
      "fork-session": { type: "boolean", default: false },
      "no-session-persistence": { type: "boolean", default: false },
      "defer-permissions": { type: "boolean", default: false },
      approve: { type: "string", multiple: true },
      deny: { type: "string", multiple: true },
      "deny-message": { type: "string" },
    },
  });
  const prompt = positionals.join(" ");
  const approvals = approvalsFrom(values.approve, values.deny, values["deny-message"]);
  if (approvals && !values.resume) {
    throw new GyreError("config_error", "--approve and --deny answer a paused session: add --resume SESSION_ID");
  }
  if (!prompt && !approvals)
    throw new GyreError("config_error", 'gyre run needs a prompt: gyre run "fix the failing test"');
  const format = values["output-format"] as PrintFormat;
  if (!FORMATS.includes(format)) {
    throw new GyreError("config_error", `--output-format must be one of ${FORMATS.join(", ")}, not "${format}"`);
  }
  const options: QueryOptions = {
    model: values.model,
    fallbackModel: values["fallback-model"],
    maxTurns: number(values["max-turns"], "--max-turns"),
    maxBudgetUsd: number(values["max-budget-usd"], "--max-budget-usd"),
    maxBudgetTokens: number(values["max-budget-tokens"], "--max-budget-tokens"),
    maxRetries: number(values["max-retries"], "--max-retries"),
    cwd: values.cwd,
    agent: values.agent,
    allowedTools: list(values["allowed-tools"]),
    disallowedTools: list(values["disallowed-tools"]),
    tools: list(values.tools),
    includePartialMessages: format === "stream-json" && values["include-partial-messages"],
    permissionMode: permissionMode(values["permission-mode"]),
    loopControlTools: values["loop-control"],
    additionalDirectories: values["add-dir"],
    settingSources: list(values["setting-sources"]) as QueryOptions["settingSources"],
    // A flag, not an env var or a settings key: a repository cannot set it for itself.
    requireProjectTrust: !values["trust-project"],
    ...(values["mcp-config"] && { mcpServers: await mcpServersOf(values["mcp-config"]) }),
    strictMcpConfig: values["strict-mcp-config"],
    // On top of the settings files' sandbox block, which still sets domains, paths, exclusions.
    ...(values.sandbox && { sandbox: { enabled: true } }),
    resume: values.resume,
    continue: values.continue,
    forkSession: values["fork-session"],
    persistSession: !values["no-session-persistence"],
    ...(approvals && { approvals }),
    // Nobody can answer a permission question in print mode: with this flag the run pauses
    // on it (exit code 3) instead of denying it, to be resumed with --approve or --deny.
    ...(values["defer-permissions"] && { canUseTool: async () => ({ behavior: "defer" as const }) }),
    // An MCP server's request for input goes to the person at the terminal; without one,
    // servers are told the client cannot answer, so their requests fail at once.
    ...(process.stdin.isTTY && { onElicitation: elicitationAsker(askPerson) }),
    systemPrompt: values["system-prompt"] ?? {
      type: "preset",
      preset: "gyre",
      append: values["append-system-prompt"],
    },
  };
  const controller = new AbortController();
  options.abortController = controller;
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let exitCode = 1;
  // The prompt is a queue so that when the agent asks a question (ask_question), the
  // person's answer goes into the same run and the agent carries on.
  const prompts = new PromptQueue();
  prompts.say(prompt);
  try {
    for await (const message of query({ prompt: prompts, options })) {
      if (format === "stream-json") write(`${JSON.stringify(message)}\n`);
      // One stderr line when this folder's settings are not trusted and were partly ignored.
      if (message.type === "system" && message.subtype === "init" && message.ignored_settings) {
        process.stderr.write(`gyre: ${describeIgnoredSettings(message.ignored_settings)}\n`);
      }
      // A hook that failed is reported on stderr (stream-json has the hook_response message itself).
      if (format !== "stream-json" && message.type === "system" && message.subtype === "hook_response") {
        if (message.outcome !== "success") process.stderr.write(`gyre: ${describeHookFailure(message)}\n`);
      }
      if (message.type !== "result") continue;
      exitCode = message.is_error ? 1 : message.terminal_reason === "requires_action" ? EXIT_REQUIRES_ACTION : 0;
      printResult(message, format);
      if (message.pending_tool_calls) printPending(message.session_id, message.pending_tool_calls);
      const answer = message.question
        ? await askPerson(message.question.question, message.question.options)
        : undefined;
      if (answer === undefined) prompts.close();
      else prompts.say(answer);
    }
  } finally {
    prompts.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return exitCode;
}

/** The servers of every `--mcp-config`; a later one wins on a name clash. */
export async function mcpServersOf(values: string[]): Promise<NonNullable<QueryOptions["mcpServers"]>> {
  const { readMcpConfigArgument } = await import("../mcp/index.js");
  const servers: NonNullable<QueryOptions["mcpServers"]> = {};
  for (const value of values) Object.assign(servers, await readMcpConfigArgument(value, process.env));
  return servers;
}

/** One line: which hook failed, whether that blocked anything, and why. */
function describeHookFailure(message: Extract<SDKMessage, { subtype: "hook_response" }>): string {
  const what = message.error?.on_failure === "block" ? "failed (blocked)" : "failed (the run went on)";
  const who =
    message.hook_name === message.hook_event
      ? message.hook_name
      : `${message.hook_event} hook ${JSON.stringify(message.hook_name)}`;
  return `${who} ${what}: ${message.output.slice(0, 2000)}`;
}

function printResult(message: Extract<SDKMessage, { type: "result" }>, format: PrintFormat): void {
  if (format === "json") write(`${JSON.stringify(message)}\n`);
  if (format !== "text") return;
  if (message.result) write(message.result.endsWith("\n") ? message.result : `${message.result}\n`);
  if (message.is_error) {
    process.stderr.write(`gyre: ${message.subtype}: ${(message.errors ?? []).join("; ") || message.terminal_reason}\n`);
  }
}

/** What a paused run waits on, and the command that goes on: on stderr, so stdout stays the result. */
function printPending(sessionId: string, pending: readonly PendingToolCall[]): void {
  const lines = pending.map((call) => {
    const input = JSON.stringify(call.input);
    const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
    return `  ${call.id}  ${call.name} ${shown}${call.reason ? `  (${call.reason})` : ""}`;
  });
  const ids = pending.map((call) => call.id).join(",");
  process.stderr.write(
    `gyre: waiting on ${pending.length === 1 ? "an approval" : `${pending.length} approvals`}:\n${lines.join("\n")}\n` +
      `gyre: go on with: gyre run --resume ${sessionId} --approve ${ids}   (or --deny ${ids})\n`,
  );
}

/** `--approve A,B --deny C` as `approvals` by tool_use id; undefined when neither is given. */
function approvalsFrom(
  approve: string[] | undefined,
  deny: string[] | undefined,
  denyMessage: string | undefined,
): QueryOptions["approvals"] {
  if (!approve && !deny) return undefined;
  const approvals: NonNullable<QueryOptions["approvals"]> = {};
  for (const id of (approve ?? []).flatMap((value) => list(value) ?? [])) approvals[id] = { behavior: "allow" };
  for (const id of (deny ?? []).flatMap((value) => list(value) ?? [])) {
    if (approvals[id]) throw new GyreError("config_error", `${id} is both approved and denied`);
    approvals[id] = { behavior: "deny", message: denyMessage ?? "The person denied this call." };
  }
  return approvals;
}

function write(text: string): void {
  process.stdout.write(text);
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
