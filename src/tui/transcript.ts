import {
  type AnthropicStreamEvent,
  describeWebSearchResult,
  type SDKMessage,
  type WebSearchToolResultBlock,
  webSearchQuery,
} from "../protocol/index.js";
import { type Todo, todoSummary, todosOf } from "./todos.js";
import { describeInput, describeOutcome } from "./tool-summary.js";

/** A tool call's state, as its one line shows it. */
export type ToolState = "pending" | "running" | "done" | "failed";

/** A tool call as the screen shows it: one line, and what is under it (diff, output, subagent). */
export interface ToolItem {
  kind: "tool";
  id: string;
  name: string;
  about: string;
  state: ToolState;
  startedAt: number;
  outcome: string;
  /** The call's input, once the model has sent all of it. */
  input: Record<string, unknown>;
  /** The whole result text the model got. */
  output: string;
  /** The subagent's own work, for a call that started one (messages tagged with this call's id). */
  subagent?: Transcript;
}

/** One thing the transcript shows. */
export type TranscriptItem =
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; text: string }
  | { kind: "thinking"; id: string; text: string }
  | ToolItem
  | { kind: "notice"; id: string; text: string; tone: "info" | "error" };

/**
 * The conversation as the screen shows it, projected from the SDKMessage stream: streamed
 * text grows in place, each tool call is one item whose state follows its messages. No
 * logic of the loop lives here; it only reads what the loop says.
 */
export class Transcript {
  readonly items: TranscriptItem[] = [];
  /** The task list as the last successful TodoWrite of this conversation left it. */
  todos: Todo[] = [];
  readonly #cwd: string;
  readonly #now: () => number;
  /** The call whose subagent this transcript shows; null for the main conversation. */
  readonly #parent: string | null;
  /** Streamed blocks of the model call in progress, by content index. */
  #streaming = new Map<number, TranscriptItem>();
  #streamId = 0;
  #noticeId = 0;
  /**
   * Between a compaction and the next model answer the loop repeats the compacted history
   * (so a stored session has it): it is on screen already, and not shown again.
   */
  #afterCompaction = false;

  constructor(cwd: string, now: () => number = Date.now, parent: string | null = null) {
    this.#cwd = cwd;
    this.#now = now;
    this.#parent = parent;
  }

  say(text: string): void {
    this.items.push({ kind: "user", id: `user-${this.items.length}`, text });
  }

  notice(text: string, tone: "info" | "error" = "info"): void {
    this.items.push({ kind: "notice", id: `notice-${this.#noticeId++}`, text, tone });
  }

  clear(): void {
    this.items.length = 0;
    this.todos = [];
    this.#streaming.clear();
  }

  /** Folds one message in; returns whether anything visible changed. */
  apply(message: SDKMessage): boolean {
    // A subagent's messages go under the call that started it (nested subagents, deeper).
    const parent = "parent_tool_use_id" in message ? (message.parent_tool_use_id ?? null) : null;
    if (parent !== this.#parent) return parent !== null && this.#toSubagent(parent, message);
    if (message.type === "stream_event" || message.type === "result") this.#afterCompaction = false;
    if (this.#afterCompaction && (message.type === "assistant" || message.type === "user")) return false;
    switch (message.type) {
      case "stream_event":
        return this.#stream(message.event);
      case "assistant":
        return this.#assistant(message);
      case "user":
        return this.#toolResults(message);
      case "tool_progress":
        return this.#running(message);
      case "result":
        return this.#result(message);
      case "system":
        if (message.subtype === "compact_boundary") {
          this.notice("Conversation compacted.");
          this.#afterCompaction = true;
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
  tool(id: string): ToolItem | undefined {
    return this.items.find((item): item is ToolItem => item.id === id && item.kind === "tool");
  }

  #toSubagent(parent: string, message: SDKMessage): boolean {
    const call = this.tool(parent);
    if (call) {
      call.subagent ??= new Transcript(this.#cwd, this.#now, parent);
      return call.subagent.apply(message);
    }
    for (const item of this.items) {
      if (item.kind === "tool" && item.subagent && item.subagent.#toSubagent(parent, message)) return true;
    }
    return false;
  }

  #stream(event: AnthropicStreamEvent): boolean {
    if (event.type === "message_start") {
      this.#streaming.clear();
      this.#streamId++;
      return false;
    }
    if (event.type === "content_block_start") {
      const block = event.content_block;
      if (block.type === "text" || block.type === "thinking") {
        const item: TranscriptItem =
          block.type === "text"
            ? { kind: "assistant", id: `stream-${this.#streamId}-${event.index}`, text: block.text }
            : { kind: "thinking", id: `stream-${this.#streamId}-${event.index}`, text: block.thinking };
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
    if (event.type === "content_block_delta" && event.delta.type === "thinking_delta") {
      const item = this.#streaming.get(event.index);
      if (item?.kind !== "thinking") return false;
      item.text += event.delta.thinking;
      return true;
    }
    return false;
  }

  #assistant(message: Extract<SDKMessage, { type: "assistant" }>): boolean {
    const streamed = [...this.#streaming.values()];
    this.#streaming.clear();
    message.message.content.forEach((block, index) => {
      if (block.type === "text" || block.type === "thinking") {
        const kind = block.type === "text" ? "assistant" : "thinking";
        const text = block.type === "text" ? block.text : block.thinking;
        const item = streamed.find((s) => s.kind === kind && s.id.endsWith(`-${index}`));
        if (item?.kind === kind) item.text = text;
        else if (text.trim() !== "") this.items.push({ kind, id: message.uuid + index, text });
      } else if (block.type === "tool_use") {
        const item = this.#toolItem(block.id, block.name, block.input as Record<string, unknown>);
        // The call is complete: the loop runs it now (or asks first, which keeps it pending).
        if (item.state === "pending") item.state = "running";
      } else if (block.type === "server_tool_use") {
        // The provider's own search, shown as the WebSearch call it stands in for.
        const item = this.#toolItem(block.id, "WebSearch", { query: webSearchQuery(block) });
        if (item.state === "pending") item.state = "running";
      } else if (block.type === "web_search_tool_result") {
        this.#searchResult(block);
      }
    });
    if (message.error) this.notice(message.error, "error");
    return true;
  }

  /** The provider's search answered: its results under its call, as WebSearch's would be. */
  #searchResult(block: WebSearchToolResultBlock): void {
    const item = this.tool(block.tool_use_id);
    if (!item) return;
    const failed = !Array.isArray(block.content);
    item.state = failed ? "failed" : "done";
    item.output = describeWebSearchResult(block, typeof item.input.query === "string" ? item.input.query : "");
    item.outcome = Array.isArray(block.content)
      ? `(${block.content.length} ${block.content.length === 1 ? "result" : "results"})`
      : `the search failed: ${block.content.error_code}`;
  }

  #toolItem(id: string, name: string, input: Record<string, unknown>): ToolItem {
    const about = describeInput(name, input, this.#cwd);
    const existing = this.tool(id);
    if (existing) {
      if (about) existing.about = about;
      if (Object.keys(input).length > 0) existing.input = input;
      return existing;
    }
    const item: ToolItem = {
      kind: "tool",
      id,
      name,
      about,
      state: "pending",
      startedAt: this.#now(),
      outcome: "",
      input,
      output: "",
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
      item.output = output;
      const todos = item.name === "TodoWrite" && !failed ? todosOf(item.input) : undefined;
      if (todos) {
        this.todos = todos;
        item.outcome = todoSummary(todos);
      }
      changed = true;
    }
    return changed;
  }

  /**
   * A call runs. Its start message (at 0 seconds) restarts its clock: a call that waited for
   * the ones before it counts its seconds from its own start, not from when the model asked.
   */
  #running(message: Extract<SDKMessage, { type: "tool_progress" }>): boolean {
    const item = this.tool(message.tool_use_id);
    if (!item) return false;
    if (message.elapsed_time_seconds === 0) item.startedAt = this.#now();
    if (item.state === "running") return false;
    item.state = "running";
    return true;
  }

  #result(message: Extract<SDKMessage, { type: "result" }>): boolean {
    this.#endUnfinished();
    // A subagent's end shows on its call's line; the notices are the conversation's own.
    if (this.#parent !== null) return true;
    if (message.terminal_reason === "interrupted" || message.terminal_reason === "aborted") {
      this.notice("Interrupted. The session goes on with your next prompt.");
    } else if (message.is_error) {
      this.notice(`${message.subtype}: ${(message.errors ?? []).join("; ") || message.terminal_reason}`, "error");
    }
    return true;
  }

  /** The run ended: calls still unfinished (a subagent's too) were cut short. */
  #endUnfinished(): void {
    for (const item of this.items) {
      if (item.kind !== "tool") continue;
      if (item.state === "pending" || item.state === "running") {
        item.state = "failed";
        item.outcome = "interrupted";
      }
      if (item.subagent) item.subagent.#endUnfinished();
    }
  }
}
