import type { SDKMessage } from "../protocol/index.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface RunningCall {
  name: string;
  summary: string;
  startedAt: number;
}

/**
 * The one-line progress of a print-mode run on a terminal: what runs now (the model, or the
 * tool calls with their start), the turn and the cost so far. A projection of the message
 * stream; drawing it is {@link ProgressDisplay}'s job.
 */
export class ProgressLine {
  #turns = 0;
  #costUsd = 0;
  #running = new Map<string, RunningCall>();
  #startedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.#startedAt = now();
  }

  observe(message: SDKMessage): void {
    if (message.type === "assistant" && message.parent_tool_use_id === null) {
      this.#turns += 1;
      this.#costUsd += message.cost_usd ?? 0;
      for (const block of message.message.content) {
        if (block.type === "tool_use") {
          this.#running.set(block.id, { name: block.name, summary: summarize(block.input), startedAt: this.now() });
        }
      }
    } else if (message.type === "user" && Array.isArray(message.message.content)) {
      for (const block of message.message.content)
        if (block.type === "tool_result") this.#running.delete(block.tool_use_id);
    } else if (message.type === "system" && message.subtype === "permission_denied") {
      this.#running.delete(message.tool_use_id);
    }
  }

  /** The line for animation frame `frame`, at most `width` characters. */
  text(frame: number, width = 80): string {
    const spinner = FRAMES[frame % FRAMES.length];
    const calls = [...this.#running.values()];
    const now = this.now();
    const doing =
      calls.length === 0
        ? `thinking ${seconds(now - this.#startedAt)}`
        : calls
            .map((call) => `${call.name}${call.summary ? ` ${call.summary}` : ""} ${seconds(now - call.startedAt)}`)
            .join(", ");
    const cost = this.#costUsd > 0 ? ` · $${this.#costUsd.toFixed(4)}` : "";
    const line = `${spinner} ${doing} · turn ${Math.max(this.#turns, 1)}${cost}`;
    return line.length > width ? `${line.slice(0, Math.max(width - 1, 0))}…` : line;
  }
}

/** A tool call's input in a few words: its command, path or pattern, else nothing. */
function summarize(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const fields = input as Record<string, unknown>;
  const value = fields.command ?? fields.file_path ?? fields.path ?? fields.pattern ?? fields.url ?? fields.description;
  if (typeof value !== "string") return "";
  const oneLine = value.replace(/\s+/g, " ").trim();
  return oneLine.length > 40 ? `${oneLine.slice(0, 39)}…` : oneLine;
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.floor(ms / 1000))}s`;
}

/** Where the progress line is drawn: a terminal's stderr. */
export interface ProgressTerminal {
  write(text: string): unknown;
  columns?: number;
}

/**
 * Draws a {@link ProgressLine} on a terminal, redrawn ten times a second, and clears it
 * whenever another line is written (so lines never mix with it) and at the end.
 */
export class ProgressDisplay {
  #frame = 0;
  #shown = false;
  #timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly line: ProgressLine,
    private readonly terminal: ProgressTerminal,
  ) {
    this.#timer = setInterval(() => this.draw(), 100);
    this.#timer.unref();
  }

  draw(): void {
    this.#frame += 1;
    this.terminal.write(`\r\x1b[2K${this.line.text(this.#frame, (this.terminal.columns || 80) - 1)}`);
    this.#shown = true;
  }

  /** Write `text` (whole lines) with the progress line out of its way. */
  print(text: string): void {
    this.clear();
    this.terminal.write(text);
  }

  clear(): void {
    if (this.#shown) this.terminal.write("\r\x1b[2K");
    this.#shown = false;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.clear();
  }
}
