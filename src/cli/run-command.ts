import { parseArgs } from "node:util";
import { GyreError } from "../errors/index.js";
import type { QueryOptions } from "../loop/index.js";
import { query } from "../loop/index.js";
import { PermissionMode, type SDKMessage } from "../protocol/index.js";
import { describeIgnoredSettings } from "../settings/index.js";
import { askPerson } from "./ask-person.js";
import { PromptQueue } from "./prompt-queue.js";

const FORMATS = ["text", "json", "stream-json"] as const;
/** What `gyre run --output-format` prints (not `outputFormat`, the structured-output option). */
type PrintFormat = (typeof FORMATS)[number];

/** `gyre run "<prompt>"`: print mode. Exit code 0 on success, 1 when the result is an error. */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      "output-format": { type: "string", default: "text" },
      model: { type: "string" },
      "fallback-model": { type: "string" },
      "max-turns": { type: "string" },
      "max-budget-usd": { type: "string" },
      "max-retries": { type: "string" },
      cwd: { type: "string" },
      "system-prompt": { type: "string" },
      "append-system-prompt": { type: "string" },
      "allowed-tools": { type: "string" },
      "disallowed-tools": { type: "string" },
      tools: { type: "string" },
      "include-partial-messages": { type: "boolean", default: false },
      "permission-mode": { type: "string" },
      "add-dir": { type: "string", multiple: true },
      "setting-sources": { type: "string", default: "user,project,local" },
      "trust-project": { type: "boolean", default: false },
      "loop-control": { type: "boolean", default: false },
      resume: { type: "string", short: "r" },
      continue: { type: "boolean", short: "c", default: false },
      "fork-session": { type: "boolean", default: false },
      "no-session-persistence": { type: "boolean", default: false },
    },
  });
  const prompt = positionals.join(" ");
  if (!prompt) throw new GyreError("config_error", 'gyre run needs a prompt: gyre run "fix the failing test"');
  const format = values["output-format"] as PrintFormat;
  if (!FORMATS.includes(format)) {
    throw new GyreError("config_error", `--output-format must be one of ${FORMATS.join(", ")}, not "${format}"`);
  }
  const options: QueryOptions = {
    model: values.model,
    fallbackModel: values["fallback-model"],
    maxTurns: number(values["max-turns"], "--max-turns"),
    maxBudgetUsd: number(values["max-budget-usd"], "--max-budget-usd"),
    maxRetries: number(values["max-retries"], "--max-retries"),
    cwd: values.cwd,
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
    resume: values.resume,
    continue: values.continue,
    forkSession: values["fork-session"],
    persistSession: !values["no-session-persistence"],
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
      if (message.type !== "result") continue;
      exitCode = message.is_error ? 1 : 0;
      printResult(message, format);
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

function printResult(message: Extract<SDKMessage, { type: "result" }>, format: PrintFormat): void {
  if (format === "json") write(`${JSON.stringify(message)}\n`);
  if (format !== "text") return;
  if (message.result) write(message.result.endsWith("\n") ? message.result : `${message.result}\n`);
  if (message.is_error) {
    process.stderr.write(`gyre: ${message.subtype}: ${(message.errors ?? []).join("; ") || message.terminal_reason}\n`);
  }
}

function write(text: string): void {
  process.stdout.write(text);
}

function permissionMode(value: string | undefined): PermissionMode | undefined {
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

function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0)
    throw new GyreError("config_error", `${flag} must be a non-negative number`);
  return parsed;
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}
