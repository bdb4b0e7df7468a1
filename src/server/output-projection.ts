import type { AnthropicStreamEvent } from "../protocol/index.js";
import type { OutputItem } from "./response-object.js";

/** A streaming event of the spec without its `sequence_number` (the writer numbers them). */
export type StreamEventBody = { type: string } & Record<string, unknown>;

/** An item being streamed: where it is in `output`, and the text or arguments so far. */
interface OpenItem {
  index: number;
  item: OutputItem;
  text: string;
}

/**
 * Projects the loop's model stream (Anthropic raw events, one model call after another) onto
 * the response's output items and the spec's streaming events: a text block is an assistant
 * `message`, a `tool_use` a `function_call`, thinking a `reasoning` item. Calls the server
 * refuses (tools outside `tool_choice`) are not output: the client never sees them.
 */
export class OutputProjection {
  readonly output: OutputItem[] = [];
  #open = new Map<number, OpenItem | null>();

  constructor(
    private readonly emit: (event: StreamEventBody) => void,
    private readonly newId: (prefix: string) => string,
    private readonly isClientTool: (name: string) => boolean,
  ) {}

  /** Takes one raw event of the current model call. */
  onEvent(event: AnthropicStreamEvent): void {
    if (event.type === "message_start") this.#closeAll("incomplete");
    else if (event.type === "content_block_start") this.#start(event.index, event.content_block);
    else if (event.type === "content_block_delta") this.#delta(event.index, event.delta);
    else if (event.type === "content_block_stop") this.#stop(event.index, "completed");
  }

  /** Ends items a cut-off or aborted model call left open, as `incomplete`. */
  finish(): void {
    this.#closeAll("incomplete");
  }

  #start(
    blockIndex: number,
    block: Extract<AnthropicStreamEvent, { type: "content_block_start" }>["content_block"],
  ): void {
    let item: OutputItem;
    if (block.type === "text") {
      item = { type: "message", id: this.newId("msg"), status: "in_progress", role: "assistant", content: [] };
    } else if (block.type === "tool_use") {
      if (!this.isClientTool(block.name)) return void this.#open.set(blockIndex, null);
      item = {
        type: "function_call",
        id: this.newId("fc"),
        call_id: block.id,
        name: block.name,
        arguments: "",
        status: "in_progress",
      };
    } else if (block.type === "thinking") {
      item = { type: "reasoning", id: this.newId("rs"), summary: [], content: [], status: "in_progress" };
    } else {
      return void this.#open.set(blockIndex, null);
    }
    const open: OpenItem = { index: this.output.length, item, text: "" };
    this.output.push(item);
    this.#open.set(blockIndex, open);
    this.emit({ type: "response.output_item.added", output_index: open.index, item: structuredClone(item) });
    if (item.type === "message") {
      this.emit({ type: "response.content_part.added", ...this.#where(open), content_index: 0, part: textPart("") });
    }
  }

  #delta(blockIndex: number, delta: Extract<AnthropicStreamEvent, { type: "content_block_delta" }>["delta"]): void {
    const open = this.#open.get(blockIndex);
    if (!open) return;
    const where = this.#where(open);
    if (delta.type === "text_delta" && open.item.type === "message") {
      open.text += delta.text;
      this.emit({ type: "response.output_text.delta", ...where, content_index: 0, delta: delta.text, logprobs: [] });
    } else if (delta.type === "input_json_delta" && open.item.type === "function_call") {
      open.text += delta.partial_json;
      this.emit({ type: "response.function_call_arguments.delta", ...where, delta: delta.partial_json });
    } else if (delta.type === "thinking_delta" && open.item.type === "reasoning") {
      open.text += delta.thinking;
      this.emit({ type: "response.reasoning.delta", ...where, content_index: 0, delta: delta.thinking });
    }
  }

  #stop(blockIndex: number, status: "completed" | "incomplete"): void {
    const open = this.#open.get(blockIndex);
    this.#open.delete(blockIndex);
    if (!open) return;
    const { item, text } = open;
    const where = this.#where(open);
    item.status = status;
    if (item.type === "message") {
      item.content = [textPart(text)];
      this.emit({ type: "response.output_text.done", ...where, content_index: 0, text, logprobs: [] });
      this.emit({ type: "response.content_part.done", ...where, content_index: 0, part: textPart(text) });
    } else if (item.type === "function_call") {
      item.arguments = text === "" ? "{}" : text;
      this.emit({
        type: "response.function_call_arguments.done",
        ...where,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      item.content = [{ type: "reasoning_text", text }];
      this.emit({ type: "response.reasoning.done", ...where, content_index: 0, text });
    }
    this.emit({ type: "response.output_item.done", output_index: open.index, item: structuredClone(item) });
  }

  #closeAll(status: "incomplete"): void {
    for (const blockIndex of [...this.#open.keys()]) this.#stop(blockIndex, status);
  }

  #where(open: OpenItem): { item_id: string; output_index: number } {
    return { item_id: open.item.id, output_index: open.index };
  }
}

function textPart(text: string) {
  return { type: "output_text" as const, text, annotations: [], logprobs: [] };
}
