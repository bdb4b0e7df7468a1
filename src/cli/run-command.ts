import { constants } from "node:os";
import { errorMessage, GyreError } from "../errors/index.js";
import { query } from "../agents/index.js";
import { nodeFetch } from "../net/index.js";
import type { QueryOptions } from "../run/index.js";
import type { PendingToolCall, SDKMessage, SDKResultMessage } from "../protocol/index.js";
import { elicitationAsker } from "./ask-elicitation.js";
import { askPerson } from "./ask-person.js";
import { parseCommandArgs } from "./parse-command-args.js";
import { cliPermissionHint } from "./permission-hint.js";
import { gyreCommand } from "./gyre-command.js";
import { PromptQueue } from "./prompt-queue.js";
import { type PrintFormat, RunReporter } from "./run-reporter.js";
import { takeBareResume } from "./resume-flag.js";
import { queryOptionsOf, RUN_OPTIONS } from "./run-options.js";
import { promptFrom } from "./stdin-prompt.js";

export { list, mcpServersOf, number, permissionMode } from "./run-options.js";

const FORMATS = ["text", "json", "stream-json"] as const;
const INPUT_FORMATS = ["text", "stream-json"] as const;

/** Exit code of a run that paused on deferred approvals (`requires_action`): resume it to go on. */
export const EXIT_REQUIRES_ACTION = 3;

/**
 * `gyre run "<prompt>"` (and `gyre -p`): print mode. Exit code 0 on success, 1 when the
 * result is an error, {@link EXIT_REQUIRES_ACTION} when the run waits on approvals (`--defer-permissions`),
 * 130 / 143 when SIGINT / SIGTERM aborted it (its result's `terminal_reason` is then `aborted`).
 */
export async function runCommand(args: string[]): Promise<number> {
  const resume = takeBareResume(args);
  const { values, positionals } = parseCommandArgs({
    args: resume.args,
    allowPositionals: true,
    options: RUN_OPTIONS,
  });
  if (resume.bare) values.resume = await chosenSession(resume.bare, values.cwd);
  const format = oneOf(values["output-format"], FORMATS, "--output-format");
  const inputFormat = oneOf(values["input-format"], INPUT_FORMATS, "--input-format");
  if (inputFormat === "stream-json" && format !== "stream-json")
    throw new GyreError("config_error", "--input-format stream-json needs --output-format stream-json");
  if (inputFormat === "stream-json" && positionals.length > 0)
    throw new GyreError(
      "config_error",
      "with --input-format stream-json the prompts come from stdin: give no prompt argument",
    );
  const options: QueryOptions = {
    ...(await queryOptionsOf(values)),
    // Model requests over node:http: a run does not pay for loading undici (src/net/node-fetch.ts).
    fetch: nodeFetch,
    includePartialMessages: format === "stream-json" && values["include-partial-messages"],
    // A call nobody can answer here is denied with what to do about it: these flags, the settings, gyre trust.
    permissionHint: cliPermissionHint("gyre run"),
    // Nobody can answer a permission question in print mode: with this flag the run pauses
    // on it (exit code 3) instead of denying it, to be resumed with --approve or --deny.
    ...(values["defer-permissions"] && { canUseTool: async () => ({ behavior: "defer" as const }) }),
    // An MCP server's request for input goes to the person at the terminal; without one,
    // servers are told the client cannot answer, so their requests fail at once.
    ...(process.stdin.isTTY && { onElicitation: elicitationAsker(askPerson) }),
  };
  const reporter = new RunReporter({ format, verbose: values.verbose, debug: values.debug, stderr: process.stderr });
  // The prompt is a queue so that when the agent asks a question (ask_question), the
  // person's answer goes into the same run and the agent carries on.
  const prompts = new PromptQueue();
  if (inputFormat === "stream-json") {
    // Loaded only here: its line schema is built from the message schemas a start otherwise never needs.
    import("./stream-json-input.js")
      .then(({ feedStreamJsonInput }) =>
        feedStreamJsonInput(process.stdin, prompts, (line, why) => reporter.line(`stdin line ${line} skipped: ${why}`)),
      )
      .catch((error: unknown) => reporter.line(`stdin: ${errorMessage(error)}`));
  } else {
    // Answering a paused run's approvals needs no prompt: stdin is then left alone.
    let prompt = options.approvals && positionals.length === 0 ? "" : await promptFrom(positionals);
    // `gyre -p -r` picked a session on the terminal: what to say in it is asked there too.
    if (!prompt && resume.bare) prompt = (await askPerson("Prompt for the resumed session:", undefined)) ?? "";
    if (!prompt && !options.approvals)
      throw new GyreError("config_error", 'gyre run needs a prompt: gyre run "fix the failing test", or on stdin');
    prompts.say(prompt);
  }
  if (values.debug) reporter.debug(`options ${describeOptions(options)}`);
  const controller = new AbortController();
  options.abortController = controller;
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    controller.abort(new GyreError("aborted", `Stopped by ${signal}`));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let exitCode = 1;
  try {
    for await (const message of query({ prompt: prompts, options })) {
      reporter.message(message);
      if (format === "stream-json") write(`${JSON.stringify(message)}\n`);
      if (message.type !== "result") continue;
      exitCode = exitCodeOf(message, stoppedBy);
      reporter.close();
      printResult(message, format);
      if (message.pending_tool_calls) printPending(message.session_id, message.pending_tool_calls);
      // A stream of prompts on stdin goes on until stdin ends; a question is answered there too.
      if (inputFormat === "stream-json") continue;
      const answer = message.question
        ? await askPerson(message.question.question, message.question.options)
        : undefined;
      if (answer === undefined) prompts.close();
      else prompts.say(answer);
    }
  } finally {
    reporter.close();
    prompts.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return exitCode;
}

/** The options that shape the run, for --debug; values that may hold secrets (MCP headers, env, settings) are left out. */
function describeOptions(options: QueryOptions): string {
  const { model, cwd, permissionMode, settingSources, tools, allowedTools, disallowedTools, maxTurns, agent } = options;
  const shown = {
    ...{ model, cwd, permissionMode, settingSources, tools, allowedTools, disallowedTools, maxTurns, agent },
    ...{ resume: options.resume, continue: options.continue, sessionId: options.sessionId },
    mcpServers: options.mcpServers && Object.keys(options.mcpServers),
    agents: options.agents && Object.keys(options.agents),
    settings: typeof options.settings === "string" ? options.settings : options.settings && "(JSON)",
    outputFormat: options.outputFormat && "json_schema",
  };
  return JSON.stringify(shown);
}

/**
 * `-r`/`--resume` with no session id after it: on a terminal, the person picks one of the
 * folder's recent sessions; without one, there is nobody to ask, so say what to give.
 */
async function chosenSession(flag: string, cwd: string | undefined): Promise<string> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new GyreError(
      "config_error",
      `${flag} needs a session id when not on a terminal (gyre sessions list shows them; --continue goes on with the latest)`,
    );
  }
  const { pickSessionToResume } = await import("./resume-picker.js");
  return pickSessionToResume(cwd ?? process.cwd());
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new GyreError("config_error", `${flag} must be one of ${allowed.join(", ")}, not "${value}"`);
  return value as T;
}

function printResult(message: Extract<SDKMessage, { type: "result" }>, format: PrintFormat): void {
  if (format === "json") write(`${JSON.stringify(message)}\n`);
  if (format !== "text") return;
  // Structured output (--json-schema) is the answer: printed as JSON, one line.
  const answer = message.structured_output !== undefined ? JSON.stringify(message.structured_output) : message.result;
  if (answer) write(answer.endsWith("\n") ? answer : `${answer}\n`);
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
  // AskUserQuestion waits for answers, not an approval: say how to give them.
  const asked = pending.filter((call) => call.name === "AskUserQuestion");
  const answers = asked.map(
    (call) =>
      `gyre: answer ${call.id} with: --answer '${call.id}={"<question>":"<answer>"}'   (or --deny ${call.id})\n`,
  );
  process.stderr.write(
    `gyre: waiting on ${pending.length === 1 ? "an approval" : `${pending.length} approvals`}:\n${lines.join("\n")}\n` +
      answers.join("") +
      `gyre: go on with: ${gyreCommand()} run --resume ${sessionId} --approve ${ids}   (or --deny ${ids})\n`,
  );
}

function write(text: string): void {
  process.stdout.write(text);
}

/**
 * The exit code of a run's result: 0, 1 for an error, {@link EXIT_REQUIRES_ACTION} when it waits on
 * approvals, and 128 + the signal's number (130 for SIGINT, 143 for SIGTERM) when a signal aborted it.
 */
export function exitCodeOf(message: SDKResultMessage, stoppedBy: NodeJS.Signals | undefined): number {
  if (message.terminal_reason === "aborted" && stoppedBy) return 128 + (constants.signals[stoppedBy] ?? 0);
  if (message.is_error) return 1;
  return message.terminal_reason === "requires_action" ? EXIT_REQUIRES_ACTION : 0;
}
