import type { AnthropicStreamEvent, SDKMessage } from "../protocol/index.js";
import { describeInput, describeOutcome } from "./tool-summary.js";

/** A tool call's state, as its one line shows it. */
export type ToolState = "pending" | "running" | "done" | "failed";

/** One thing the transcript shows. */
export type TranscriptItem =
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; text: string }
  | {
      kind: "tool";
      id: string;
      name: string;
      about: string;
      state: ToolState;
      startedAt: number;
      outcome: string;
    }
  | { kind: "notice"; id: string; text: string; tone: "info" | "error" };

/**
 * The conversation as the screen shows it, projected from the SDKMessage stream: streamed
 * text grows in place, each tool call is one item whose state follows its messages. No
 * logic of the loop lives here; it only reads what the loop says.
 */
export class Transcript {
  readonly items: TranscriptItem[] = [];
  readonly #cwd: string;
  readonly #now: () => number;
  /** Streamed blocks of the model call in progress, by content index. */
  #streaming = new Map<number, TranscriptItem>();
  #streamId = 0;
  #noticeId = 0;

  constructor(cwd: string, now: () => number = Date.now) {
    this.#cwd = cwd;
    this.#now = now;
  }

  say(text: string): void {
    this.items.push({ kind: "user", id: `user-${this.items.length}`, text });
  }

  notice(text: string, tone: "info" | "error" = "info"): void {
    this.items.push({ kind: "notice", id: `notice-${this.#noticeId++}`, text, tone });
  }

  clear(): void {
    this.items.length = 0;
    this.#streaming.clear();
  }

  /** Folds one message in; returns whether anything visible changed. */
  apply(message: SDKMessage): boolean {
    // Subagents' own messages stay out of the main transcript (their call's line stands for them).
    if ("parent_tool_use_id" in message && message.parent_tool_use_id) return false;
    switch (message.type) {
      case "stream_event":
        return this.#stream(message.event);
      case "assistant":
        return this.#assistant(message);
      case "user":
        return this.#toolResults(message);
      case "tool_progress":
        return this.#setState(message.tool_use_id, "running");
      case "result":
        return this.#result(message);
      case "system":
        if (message.subtype === "compact_boundary") {
          this.notice("Conversation compacted.");
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  /**
   * How many leading items are final (nothing about them changes any more): they can be
   * written once above the live part of the screen.
   */
  settledCount(): number {
    const live = new Set([...this.#streaming.values()]);
    const index = this.items.findIndex(
      (item) => live.has(item) || (item.kind === "tool" && (item.state === "pending" || item.state === "running")),
    );
    return index === -1 ? this.items.length : index;
  }

  /** A call is waiting on the person's approval: it stays pending until answered. */
  tool(id: string): Extract<TranscriptItem, { kind: "tool" }> | undefined {
    return this.items.find(
      (item): item is Extract<TranscriptItem, { kind: "tool" }> => item.id === id && item.kind === "tool",
    );
  }

  #stream(event: AnthropicStreamEvent): boolean {
    if (event.type === "message_start") {
      this.#streaming.clear();
      this.#streamId++;
      return false;
    }
    if (event.type === "content_block_start") {
      const block = event.content_block;
      if (block.type === "text") {
        const item: TranscriptItem = {
          kind: "assistant",
          id: `stream-${this.#streamId}-${event.index}`,
          text: block.text,
        };
        this.#streaming.set(event.index, item);
        this.items.push(item);
        return true;
      }
      if (block.type === "tool_use") {
        const item = this.#toolItem(block.id, block.name, {});
        this.#streaming.set(event.index, item);
        return true;
      }
      return false;
    }
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      const item = this.#streaming.get(event.index);
      if (item?.kind !== "assistant") return false;
      item.text += event.delta.text;
      return true;
    }
    return false;
  }

  #assistant(message: Extract<SDKMessage, { type: "assistant" }>): boolean {
    const streamed = [...this.#streaming.values()];
    this.#streaming.clear();
    message.message.content.forEach((block, index) => {
      if (block.type === "text") {
        const item = streamed.find((s) => s.kind === "assistant" && s.id.endsWith(`-${index}`));
        if (item?.kind === "assistant") item.text = block.text;
        else if (block.text.trim() !== "")
          this.items.push({ kind: "assistant", id: message.uuid + index, text: block.text });
      } else if (block.type === "tool_use") {
        const item = this.#toolItem(block.id, block.name, block.input as Record<string, unknown>);
        // The call is complete: the loop runs it now (or asks first, which keeps it pending).
        if (item.state === "pending") item.state = "running";
      }
    });
    if (message.error) this.notice(message.error, "error");
    return true;
  }

  #toolItem(id: string, name: string, input: Record<string, unknown>): Extract<TranscriptItem, { kind: "tool" }> {
    const about = describeInput(name, input, this.#cwd);
    const existing = this.tool(id);
    if (existing) {
      if (about) existing.about = about;
      return existing;
    }
    const item = {
      kind: "tool" as const,
      id,
      name,
      about,
      state: "pending" as ToolState,
      startedAt: this.#now(),
      outcome: "",
    };
    this.items.push(item);
    return item;
  }

  #toolResults(message: Extract<SDKMessage, { type: "user" }>): boolean {
    const { content } = message.message;
    if (typeof content === "string") return false;
    let changed = false;
    for (const block of content) {
      if (block.type !== "tool_result") continue;
      const item = this.tool(block.tool_use_id);
      if (!item) continue;
      const output =
        typeof block.content === "string"
          ? block.content
          : block.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      const failed = block.is_error === true;
      item.state = failed ? "failed" : "done";
      item.outcome = describeOutcome(item.name, output, failed);
      changed = true;
    }
    return changed;
  }

  #setState(id: string, state: ToolState): boolean {
    const item = this.tool(id);
    if (!item || item.state === state) return false;
    item.state = state;
    return true;
  }

  #result(message: Extract<SDKMessage, { type: "result" }>): boolean {
    for (const item of this.items) {
      if (item.kind === "tool" && (item.state === "pending" || item.state === "running")) {
        item.state = "failed";
        item.outcome = "interrupted";
      }
    }
    if (message.terminal_reason === "interrupted") {
      this.notice("Interrupted. The session goes on with your next prompt.");
    } else if (message.is_error) {
      this.notice(`${message.subtype}: ${(message.errors ?? []).join("; ") || message.terminal_reason}`, "error");
    }
    return true;
  }
}
