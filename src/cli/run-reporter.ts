import type { SDKMessage } from "../protocol/index.js";
import { describeIgnoredSettings } from "../settings/index.js";
import { ProgressDisplay, ProgressLine } from "./progress-line.js";

/** What `gyre run --output-format` prints (not `outputFormat`, the structured-output option). */
export type PrintFormat = "text" | "json" | "stream-json";

/** The stderr a reporter writes to: `process.stderr`, or a stand-in in tests. */
export interface ReporterStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface RunReporterOptions {
  format: PrintFormat;
  /** Each tool call and its outcome, as it happens. */
  verbose: boolean;
  /** Every message, timed from the start. */
  debug: boolean;
  stderr: ReporterStream;
  now?: () => number;
}

/**
 * What print mode says on stderr while a run goes on, so that stdout stays the answer: a
 * folder's ignored settings, failed hooks, denied tool calls (text and json output; stream-json
 * carries those messages itself), with `--verbose` every tool call, with `--debug` every
 * message, and on a terminal (text and json output) a progress line. Nothing else: without a
 * terminal and without those flags a successful run writes nothing here.
 */
export class RunReporter {
  readonly #options: RunReporterOptions;
  readonly #now: () => number;
  readonly #startedAt: number;
  readonly #toolNames = new Map<string, string>();
  readonly #progress: ProgressLine | undefined;
  readonly #display: ProgressDisplay | undefined;

  constructor(options: RunReporterOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#startedAt = this.#now();
    if (options.format !== "stream-json" && options.stderr.isTTY === true) {
      this.#progress = new ProgressLine(this.#now);
      this.#display = new ProgressDisplay(this.#progress, options.stderr);
    }
  }

  message(message: SDKMessage): void {
    this.#progress?.observe(message);
    if (this.#options.debug) this.debug(describeMessage(message));
    if (message.type === "system" && message.subtype === "init" && message.ignored_settings) {
      this.line(describeIgnoredSettings(message.ignored_settings));
    }
    if (message.type === "system" && message.subtype === "init")
      for (const skill of message.invalid_skills ?? []) this.line(`skill left out: ${skill.error}`);
    if (this.#options.format === "stream-json") return;
    if (message.type === "system" && message.subtype === "hook_response" && message.outcome !== "success") {
      this.line(describeHookFailure(message));
    }
    if (message.type === "system" && message.subtype === "permission_denied") {
      // Long enough for what the denial says to do (the flag with the rule, the settings file, gyre trust).
      this.line(`${message.tool_name} denied: ${firstLine(message.message, 800)}`);
    }
    if (this.#options.verbose) this.#verbose(message);
  }

  /** One `gyre: …` line on stderr. */
  line(text: string): void {
    this.#write(`gyre: ${text}\n`);
  }

  debug(text: string): void {
    this.#write(`[debug +${this.#now() - this.#startedAt}ms] ${text}\n`);
  }

  /** Stops the progress line and takes it off the terminal. */
  close(): void {
    this.#display?.stop();
  }

  #verbose(message: SDKMessage): void {
    if (message.type === "assistant") {
      for (const block of message.message.content) {
        if (block.type !== "tool_use") continue;
        this.#toolNames.set(block.id, block.name);
        this.line(`${block.name} ${firstLine(JSON.stringify(block.input) ?? "", 200)}`);
      }
    }
    if (message.type === "user" && Array.isArray(message.message.content)) {
      for (const block of message.message.content) {
        if (block.type !== "tool_result") continue;
        const name = this.#toolNames.get(block.tool_use_id) ?? "tool";
        const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
        this.line(block.is_error ? `${name} failed: ${firstLine(text, 200)}` : `${name} done`);
      }
    }
  }

  #write(text: string): void {
    if (this.#display) this.#display.print(text);
    else this.#options.stderr.write(text);
  }
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

/** A message in one debug line: its kind and what matters of it. */
function describeMessage(message: SDKMessage): string {
  switch (message.type) {
    case "system":
      if (message.subtype === "init")
        return `system/init model=${message.model} session=${message.session_id} cwd=${message.cwd}`;
      return `system/${message.subtype}`;
    case "assistant": {
      const blocks = message.message.content.map((block) =>
        block.type === "tool_use" ? `tool_use:${block.name}` : block.type,
      );
      const usage = message.message.usage;
      return `assistant [${blocks.join(", ")}] stop=${message.message.stop_reason} tokens in=${usage.input_tokens} out=${usage.output_tokens}`;
    }
    case "user":
      return typeof message.message.content === "string"
        ? `user (${message.message.content.length} chars)`
        : `user [${message.message.content.map((block) => block.type).join(", ")}]`;
    case "stream_event":
      return `stream_event ${message.event.type}`;
    case "tool_progress":
      return `tool_progress ${message.tool_name} ${message.elapsed_time_seconds}s`;
    case "result":
      return `result/${message.subtype} reason=${message.terminal_reason} turns=${message.num_turns} cost=$${message.total_cost_usd}`;
  }
}

function firstLine(text: string, max: number): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
