import type { AnthropicStreamEvent, PendingToolCall, ToolResultBlock } from "../protocol/index.js";
import type { KindOf } from "./call-kinds.js";
import { FreeformInputReader } from "./freeform-input.js";
import type { OutputItem } from "./response-object.js";
import type { StreamEventBody } from "./stream-event.js";

/** An item being streamed: where it is in `output`, and the text or arguments so far. */
interface OpenItem {
  index: number;
  item: OutputItem;
  text: string;
  /** The upstream's tool_use id of a call. */
  callId?: string;
  /** A freeform call's input text read out of its arguments so far, and sent as deltas. */
  freeform?: { reader: FreeformInputReader; sent: string };
}

/**
 * Projects the loop's model stream (Anthropic raw events, one model call after another) onto
 * the response's output items and the spec's streaming events: a text block is an assistant
 * `message`, thinking a `reasoning` item, a `tool_use` by its kind: a client's `function_call`
 * or `custom_tool_call`, an `mcp_call` (completed when its result comes), or a built-in call as
 * `function_call` followed by Gyre's `function_call_output`. Calls the server refuses (tools
 * outside `tool_choice`) and MCP calls waiting on approval are not streamed. An event's `item`
 * is the live output item, which later events change: a sink that keeps events copies it
 * (`keptEvent`).
 */
export class OutputProjection {
  readonly output: OutputItem[] = [];
  #open = new Map<number, OpenItem | null>();
  /** Server-side calls streamed and waiting on their result, by tool_use id. */
  #running = new Map<string, OpenItem>();

  constructor(
    private readonly emit: (event: StreamEventBody) => void,
    private readonly newId: (prefix: string) => string,
    private readonly kindOf: KindOf,
  ) {}

  /**
   * Starts from the items a run taken over had finished (in order): they stay in the output,
   * new items come after them, and a built-in call among them that has no output yet gets its
   * `function_call_output` when its result comes.
   */
  resume(items: readonly OutputItem[]): void {
    const answered = new Set(items.flatMap((item) => (item.type === "function_call_output" ? [item.call_id] : [])));
    for (const item of items) {
      const open: OpenItem = { index: this.output.length, item: structuredClone(item), text: "" };
      this.output.push(open.item);
      if (open.item.type === "function_call" && !answered.has(open.item.call_id))
        if (this.kindOf(open.item.name).kind === "builtin") this.#running.set(open.item.call_id, open);
    }
  }

  /** An `mcp_list_tools` item: the tools the server offers to this response, or why it could not list them. */
  listTools(
    serverLabel: string,
    tools: Extract<OutputItem, { type: "mcp_list_tools" }>["tools"],
    error?: string,
  ): void {
    const item: OutputItem = {
      type: "mcp_list_tools",
      id: this.newId("mcpl"),
      server_label: serverLabel,
      tools: [],
      error: null,
    };
    const open = this.#add(item);
    const where = this.#where(open);
    this.emit({ type: "response.mcp_list_tools.in_progress", ...where });
    item.tools = tools;
    item.error = error ?? null;
    this.emit({ type: error ? "response.mcp_list_tools.failed" : "response.mcp_list_tools.completed", ...where });
    this.emit({ type: "response.output_item.done", output_index: open.index, item });
  }

  /**
   * A server-side call's result: completes its `mcp_call`, or adds the built-in call's
   * `function_call_output`. An MCP call approved on this continuation was never streamed: its
   * `mcp_call` item is made whole now, from `approved`.
   */
  onToolResult(block: ToolResultBlock, approved?: PendingToolCall): void {
    const text = typeof block.content === "string" ? block.content : block.content.map(blockText).join("\n");
    const failed = block.is_error === true;
    let open = this.#running.get(block.tool_use_id);
    this.#running.delete(block.tool_use_id);
    if (!open && approved) {
      const kind = this.kindOf(approved.name);
      if (kind.kind !== "mcp") return;
      open = this.#add(
        mcpCall(
          this.newId("mcp"),
          kind.serverLabel,
          kind.tool,
          JSON.stringify(approved.input ?? {}),
          block.tool_use_id,
        ),
      );
      this.emit({ type: "response.mcp_call.in_progress", ...this.#where(open) });
    }
    if (!open) return;
    const { item } = open;
    if (item.type === "mcp_call") {
      item.status = failed ? "failed" : "completed";
      if (failed) item.error = text;
      else item.output = text;
      this.emit({ type: failed ? "response.mcp_call.failed" : "response.mcp_call.completed", ...this.#where(open) });
      this.emit({ type: "response.output_item.done", output_index: open.index, item });
    } else if (item.type === "function_call") {
      const output: OutputItem = {
        type: "function_call_output",
        id: this.newId("fco"),
        call_id: item.call_id,
        output: text,
        status: failed ? "failed" : "completed",
      };
      const added = this.#add(output);
      this.emit({ type: "response.output_item.done", output_index: added.index, item: output });
    }
  }

  /** The MCP calls a paused run waits to have approved, as `mcp_approval_request` items. */
  requestApprovals(pending: readonly PendingToolCall[]): void {
    for (const call of pending) {
      const kind = this.kindOf(call.name);
      if (call.kind !== "approval" || kind.kind !== "mcp") continue;
      const item: OutputItem = {
        type: "mcp_approval_request",
        id: call.id,
        server_label: kind.serverLabel,
        name: kind.tool,
        arguments: JSON.stringify(call.input ?? {}),
      };
      const open = this.#add(item);
      this.emit({ type: "response.output_item.done", output_index: open.index, item });
    }
  }

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
    const item = this.#itemFor(block);
    if (!item) return void this.#open.set(blockIndex, null);
    const open = this.#add(item);
    if (block.type === "tool_use") open.callId = block.id;
    this.#open.set(blockIndex, open);
    if (item.type === "message") {
      this.emit({ type: "response.content_part.added", ...this.#where(open), content_index: 0, part: textPart("") });
    }
  }

  #itemFor(
    block: Extract<AnthropicStreamEvent, { type: "content_block_start" }>["content_block"],
  ): OutputItem | undefined {
    if (block.type === "text")
      return { type: "message", id: this.newId("msg"), status: "in_progress", role: "assistant", content: [] };
    if (block.type === "thinking")
      return { type: "reasoning", id: this.newId("rs"), summary: [], content: [], status: "in_progress" };
    if (block.type !== "tool_use") return undefined;
    const kind = this.kindOf(block.name);
    if (kind.kind === "refused" || (kind.kind === "mcp" && kind.approval)) return undefined;
    if (kind.kind === "mcp") return mcpCall(this.newId("mcp"), kind.serverLabel, kind.tool, "", null);
    if (kind.kind === "custom")
      return {
        type: "custom_tool_call",
        id: this.newId("ctc"),
        call_id: block.id,
        name: block.name,
        input: "",
        status: "in_progress",
      };
    return {
      type: "function_call",
      id: this.newId("fc"),
      call_id: block.id,
      name: block.name,
      arguments: "",
      status: "in_progress",
    };
  }

  #add(item: OutputItem): OpenItem {
    const open: OpenItem = { index: this.output.length, item, text: "" };
    this.output.push(item);
    this.emit({ type: "response.output_item.added", output_index: open.index, item });
    return open;
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
    } else if (delta.type === "input_json_delta" && open.item.type === "mcp_call") {
      open.text += delta.partial_json;
      this.emit({ type: "response.mcp_call_arguments.delta", ...where, delta: delta.partial_json });
    } else if (delta.type === "input_json_delta" && open.item.type === "custom_tool_call") {
      // The freeform input is the `input` string of the JSON: its text goes out as it is read.
      open.text += delta.partial_json;
      open.freeform ??= { reader: new FreeformInputReader(), sent: "" };
      const text = open.freeform.reader.push(delta.partial_json);
      open.freeform.sent += text;
      if (text !== "") this.emit({ type: "response.custom_tool_call_input.delta", ...where, delta: text });
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
    if ("status" in item && item.type !== "function_call_output") item.status = status;
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
    } else if (item.type === "mcp_call") {
      item.arguments = text === "" ? "{}" : text;
      this.emit({ type: "response.mcp_call_arguments.done", ...where, arguments: item.arguments });
      if (status === "completed") {
        item.status = "in_progress";
        this.emit({ type: "response.mcp_call.in_progress", ...where });
        // Done when its result comes (onToolResult).
        return void this.#running.set(open.callId ?? "", open);
      }
    } else if (item.type === "custom_tool_call") {
      item.input = freeformInput(text);
      // What the deltas did not carry (all of it, for arguments of another shape); `done` has it whole.
      const sent = open.freeform?.sent ?? "";
      const rest = item.input.startsWith(sent) ? item.input.slice(sent.length) : "";
      if (rest !== "") this.emit({ type: "response.custom_tool_call_input.delta", ...where, delta: rest });
      this.emit({ type: "response.custom_tool_call_input.done", ...where, input: item.input });
    } else if (item.type === "reasoning") {
      item.content = [{ type: "reasoning_text", text }];
      this.emit({ type: "response.reasoning.done", ...where, content_index: 0, text });
    }
    if (item.type === "function_call" && status === "completed" && this.kindOf(item.name).kind === "builtin")
      this.#running.set(item.call_id, open);
    this.emit({ type: "response.output_item.done", output_index: open.index, item });
  }

  #closeAll(status: "incomplete"): void {
    for (const blockIndex of [...this.#open.keys()]) this.#stop(blockIndex, status);
  }

  #where(open: OpenItem): { item_id: string; output_index: number } {
    return { item_id: open.item.id, output_index: open.index };
  }
}

function mcpCall(
  id: string,
  serverLabel: string,
  name: string,
  args: string,
  approvalRequestId: string | null,
): OutputItem {
  return {
    type: "mcp_call",
    id,
    server_label: serverLabel,
    name,
    arguments: args,
    output: null,
    error: null,
    status: "in_progress",
    approval_request_id: approvalRequestId,
  };
}

function freeformInput(json: string): string {
  try {
    const value = JSON.parse(json) as { input?: unknown };
    return typeof value.input === "string" ? value.input : json;
  } catch {
    return json;
  }
}

function blockText(block: { type: string; text?: string }): string {
  return block.type === "text" ? (block.text ?? "") : `[${block.type}]`;
}

function textPart(text: string) {
  return { type: "output_text" as const, text, annotations: [], logprobs: [] };
}
