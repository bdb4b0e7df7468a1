import type { AnthropicStreamEvent, SDKMessage, SDKResultMessage } from "../protocol/index.js";
import type { KindOf } from "./call-kinds.js";
import { OutputProjection } from "./output-projection.js";
import type { OutputItem } from "./response-object.js";
import type { NumberedEvent, StreamEventBody } from "./stream-event.js";

/** A run a lost worker left, as the worker that takes it over finds it. */
export interface Takeover {
  /** The events its stream carried already, in order. */
  events: readonly NumberedEvent[];
  /** Its session holds what the run did (`continueRun` goes on from it), not only the seeded conversation. */
  continueRun: boolean;
  /** What the run committed to its session (after the seeded conversation): the truth of its output. */
  committed: readonly SDKMessage[];
  /**
   * The run's result, when the lost worker's run had ended: it died after committing the result
   * and before storing the response. The response ends with it; nothing runs again.
   */
  ended?: SDKResultMessage;
}

/** What a stream's events say of the output: the items it finished, and those it began and never finished. */
export function streamedOutput(events: readonly NumberedEvent[]): {
  done: OutputItem[];
  cut: { index: number; item: OutputItem }[];
} {
  const added = new Map<number, OutputItem>();
  const done = new Map<number, OutputItem>();
  for (const event of events) {
    const index = event.output_index;
    if (typeof index !== "number") continue;
    if (event.type === "response.output_item.added") added.set(index, event.item as OutputItem);
    else if (event.type === "response.output_item.done") done.set(index, event.item as OutputItem);
  }
  const byIndex = <T>(entries: [number, T][]) => entries.sort(([a], [b]) => a - b);
  return {
    done: byIndex([...done]).map(([, item]) => item),
    cut: byIndex([...added].filter(([index]) => !done.has(index))).map(([index, item]) => ({ index, item })),
  };
}

/**
 * Takes over the output of a run a lost worker left. Its session is the truth: the output is
 * what the run committed there. Items the stream began and never finished are closed
 * `incomplete` (a client sees every item whole and once) and left out; committed items the
 * stream already finished keep their ids; committed ones it never carried (the lost worker died
 * before their events went out) are streamed now. The run's new items come after them. Returns
 * the MCP servers listed by then too (not listed again).
 */
export function resumeOutput(
  takeover: Takeover,
  projection: OutputProjection,
  emit: (event: StreamEventBody) => void,
  kindOf: KindOf,
  newId: (prefix: string) => string,
  listed: ReadonlySet<string>,
): ReadonlySet<string> {
  const { done, cut } = streamedOutput(takeover.events);
  for (const { index, item } of cut)
    emit({ type: "response.output_item.done", output_index: index, item: { ...item, status: "incomplete" } });
  const listings = done.filter((item) => item.type === "mcp_list_tools");
  const streamed = done.filter((item) => item.type !== "mcp_list_tools");
  const output: OutputItem[] = [...listings];
  committedOutput(takeover.committed, kindOf, newId).forEach((item, index) => {
    const same = streamed[index];
    if (same?.type === item.type && output.length === listings.length + index) return void output.push(same);
    const at = output.length;
    output.push(item);
    emit({ type: "response.output_item.added", output_index: at, item: structuredClone(item) });
    emit({ type: "response.output_item.done", output_index: at, item: structuredClone(item) });
  });
  projection.resume(output);
  return new Set([
    ...listed,
    ...listings.flatMap((item) => (item.type === "mcp_list_tools" ? [item.server_label] : [])),
  ]);
}

/** The output items of a run's committed messages, as the projection made them while it ran. */
function committedOutput(messages: readonly SDKMessage[], kindOf: KindOf, newId: (prefix: string) => string) {
  const projection = new OutputProjection(() => {}, newId, kindOf);
  for (const message of messages) {
    if ((message.type !== "assistant" && message.type !== "user") || message.parent_tool_use_id !== null) continue;
    if (message.type === "assistant") for (const event of streamOf(message.message.content)) projection.onEvent(event);
    if (message.type === "user" && Array.isArray(message.message.content))
      for (const block of message.message.content) if (block.type === "tool_result") projection.onToolResult(block);
  }
  projection.finish();
  return projection.output;
}

/** A committed answer's blocks as the raw stream events that carried them. */
function* streamOf(
  content: Extract<SDKMessage, { type: "assistant" }>["message"]["content"],
): Generator<AnthropicStreamEvent> {
  for (const [index, block] of content.entries()) {
    if (block.type === "text") {
      yield { type: "content_block_start", index, content_block: { type: "text", text: "" } };
      yield { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } };
    } else if (block.type === "thinking") {
      yield { type: "content_block_start", index, content_block: { ...block, thinking: "" } };
      yield { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.thinking } };
    } else if (block.type === "tool_use") {
      yield { type: "content_block_start", index, content_block: { ...block, input: {} } };
      const json = JSON.stringify(block.input ?? {});
      yield { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json } };
    } else continue;
    yield { type: "content_block_stop", index };
  }
}
