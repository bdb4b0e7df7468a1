import type { LanguageModelV3StreamPart, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import type {
  APIAssistantMessage,
  AssistantContentBlock,
  ServerToolUsage,
  StopReason,
  Usage,
} from "../../protocol/index.js";
import { emptyUsage } from "../../protocol/index.js";
import type { ModelApi, ModelStreamEvent, ServerCompactionUsage, ToolInputProblem } from "../model.js";
import { toStopReason, toUsage } from "./finish.js";
import {
  groundingSearch,
  serverToolUsage,
  textCitations,
  titleResults,
  webSearchResultBlock,
} from "./server-search-blocks.js";
import { WEB_SEARCH_TOOL_NAME } from "./server-search-replay.js";

type Metadata = Record<string, Record<string, unknown>>;

interface OpenBlock {
  index: number;
  block: AssistantContentBlock;
  /**
   * UTF-8 bytes of a tool call's argument text streamed so far; set from its start until the
   * final `tool-call` part. Only counted: the provider package keeps the text itself.
   */
  inputBytes?: number;
}

/** Characters of unparseable arguments kept to quote back to the model. */
const QUOTED_INPUT_CHARS = 2000;

/**
 * Builds one assistant message from the AI SDK's provider-neutral stream parts, and
 * re-expresses each part as the Anthropic raw stream event a Claude Agent SDK consumer
 * expects in `stream_event` messages. The message is valid at every point, so a stream
 * cut part-way still leaves a usable partial message.
 */
export class MessageAssembler {
  readonly #content: AssistantContentBlock[] = [];
  readonly #open = new Map<string, OpenBlock>();
  readonly #toolBlocks = new Map<string, OpenBlock>();
  #id: string;
  #model: string;
  #started = false;
  #stopReason: StopReason | null = null;
  #usage: Usage = emptyUsage();
  readonly #maxInputBytes: number;
  readonly #api: ModelApi | undefined;
  /** Calls of provider tools Gyre did not offer (and so keeps nothing of), by call id. */
  readonly #ignored = new Set<string>();
  /** Tool calls whose arguments were not valid JSON or were too large, by call id. */
  readonly toolInputProblems = new Map<string, ToolInputProblem>();
  /** The tokens of Anthropic's server-side compaction in this answer, when it reported them. */
  serverCompaction: ServerCompactionUsage | undefined;

  /**
   * `maxInputBytes`: arguments longer than this (UTF-8) are not parsed, and the call is refused.
   * `api`: the model's wire API, which says how its provider's web search results read.
   */
  constructor(id: string, model: string, maxInputBytes = Number.POSITIVE_INFINITY, api?: ModelApi) {
    this.#id = id;
    this.#model = model;
    this.#maxInputBytes = maxInputBytes;
    this.#api = api;
  }

  /** Apply one stream part; returns the raw events it corresponds to. */
  push(part: LanguageModelV3StreamPart): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (part.type === "response-metadata") {
      if (part.id && !this.#started) this.#id = part.id;
      if (part.modelId && !this.#started) this.#model = part.modelId;
      return events;
    }
    if (!this.#started && part.type !== "stream-start" && part.type !== "raw") {
      this.#started = true;
      events.push({ type: "message_start", message: { ...this.message(), content: [] } });
    }
    switch (part.type) {
      case "text-start":
        events.push(this.#start(part.id, { type: "text", text: "", provider_metadata: meta(part.providerMetadata) }));
        break;
      case "text-delta": {
        const open = this.#ensure(part.id, () => ({ type: "text", text: "" }), events);
        if (open.block.type === "text") open.block.text += part.delta;
        events.push({
          type: "content_block_delta",
          index: open.index,
          delta: { type: "text_delta", text: part.delta },
        });
        break;
      }
      case "reasoning-start":
        events.push(
          this.#start(part.id, {
            type: "thinking",
            thinking: "",
            provider_metadata: meta(part.providerMetadata),
          }),
        );
        break;
      case "reasoning-delta": {
        const open = this.#ensure(part.id, () => ({ type: "thinking", thinking: "" }), events);
        if (open.block.type === "thinking") open.block.thinking += part.delta;
        events.push({
          type: "content_block_delta",
          index: open.index,
          delta: { type: "thinking_delta", thinking: part.delta },
        });
        this.#absorbMetadata(open, part.providerMetadata, events);
        break;
      }
      case "text-end":
      case "reasoning-end": {
        const open = this.#open.get(part.id);
        if (!open) break;
        this.#absorbMetadata(open, part.providerMetadata, events);
        this.#open.delete(part.id);
        events.push({ type: "content_block_stop", index: open.index });
        break;
      }
      case "tool-input-start": {
        if (part.providerExecuted && part.toolName !== WEB_SEARCH_TOOL_NAME) {
          this.#ignored.add(part.id);
          break;
        }
        const block: AssistantContentBlock = {
          type: part.providerExecuted ? "server_tool_use" : "tool_use",
          id: part.id,
          name: part.toolName,
          input: {},
          provider_metadata: meta(part.providerMetadata),
        };
        events.push(this.#start(part.id, block));
        const open = this.#open.get(part.id);
        if (open) {
          open.inputBytes = 0;
          this.#toolBlocks.set(part.id, open);
        }
        break;
      }
      case "tool-input-delta": {
        const open = this.#toolBlocks.get(part.id);
        if (!open || open.inputBytes === undefined) break;
        open.inputBytes += Buffer.byteLength(part.delta);
        // Past the limit the call is refused anyway: callers are not sent the rest.
        if (open.inputBytes > this.#maxInputBytes) break;
        events.push({
          type: "content_block_delta",
          index: open.index,
          delta: { type: "input_json_delta", partial_json: part.delta },
        });
        break;
      }
      case "tool-input-end": {
        const open = this.#open.get(part.id);
        if (open) {
          this.#open.delete(part.id);
          events.push({ type: "content_block_stop", index: open.index });
        }
        break;
      }
      case "tool-call":
        if (part.providerExecuted && (part.toolName !== WEB_SEARCH_TOOL_NAME || this.#ignored.has(part.toolCallId))) {
          break;
        }
        this.#finishToolCall(part, events);
        break;
      case "tool-result":
        if (part.toolName === WEB_SEARCH_TOOL_NAME && !this.#ignored.has(part.toolCallId))
          this.#searchResult(part, events);
        break;
      case "finish": {
        this.#closeAll(events);
        const grounded = this.#api === "google" ? this.#grounding(part.providerMetadata, events) : undefined;
        titleResults(this.#content);
        // @ai-sdk/anthropic adds a server-side compaction's tokens to the answer's: they are kept
        // apart (the compaction's cost is its own, and the answer's usage says how full the context is).
        this.serverCompaction = compactionIteration(part.providerMetadata);
        this.#usage = withServerTools(
          withoutCompaction(toUsage(part.usage), this.serverCompaction),
          grounded ?? serverToolUsage(part.usage, this.#content),
        );
        this.#stopReason = toStopReason(part.finishReason.unified, part.finishReason.raw);
        events.push({
          type: "message_delta",
          delta: { stop_reason: this.#stopReason, stop_sequence: null },
          usage: { ...this.#usage },
        });
        events.push({ type: "message_stop" });
        break;
      }
      default:
        break;
    }
    return events;
  }

  /** The message as assembled so far. */
  message(): APIAssistantMessage {
    return {
      id: this.#id,
      type: "message",
      role: "assistant",
      model: this.#model,
      content: this.#content.map((block) => ({ ...block })),
      stop_reason: this.#stopReason,
      stop_sequence: null,
      usage: { ...this.#usage },
    };
  }

  get finished(): boolean {
    return this.#stopReason !== null;
  }

  /**
   * What streamed so far for a failed call, without tool calls whose arguments never
   * completed (the stream was cut inside one); undefined when nothing of substance did.
   */
  partial(): APIAssistantMessage | undefined {
    this.#dropIncompleteToolCalls();
    const message = this.message();
    const substantial = message.content.some((block) => block.type !== "text" || block.text.length > 0);
    return substantial ? message : undefined;
  }

  #dropIncompleteToolCalls(): void {
    for (const [id, open] of this.#toolBlocks) {
      if (open.inputBytes === undefined) continue;
      const index = this.#content.indexOf(open.block);
      if (index >= 0) this.#content.splice(index, 1);
      this.#toolBlocks.delete(id);
    }
  }

  #start(id: string, block: AssistantContentBlock): ModelStreamEvent {
    const index = this.#content.length;
    this.#content.push(block);
    this.#open.set(id, { index, block });
    const { provider_metadata: _omit, ...wire } = block;
    return { type: "content_block_start", index, content_block: wire };
  }

  #ensure(id: string, create: () => AssistantContentBlock, events: ModelStreamEvent[]): OpenBlock {
    const existing = this.#open.get(id);
    if (existing) return existing;
    events.push(this.#start(id, create()));
    return this.#open.get(id) as OpenBlock;
  }

  #absorbMetadata(open: OpenBlock, metadata: SharedV3ProviderMetadata | undefined, events: ModelStreamEvent[]): void {
    const incoming = meta(metadata);
    if (!incoming) return;
    const block = open.block;
    block.provider_metadata = { ...block.provider_metadata, ...incoming };
    if (block.type === "text") {
      const citations = textCitations(block, incoming);
      if (citations) block.citations = citations;
    }
    const anthropic = incoming.anthropic;
    if (
      block.type === "thinking" &&
      typeof anthropic?.signature === "string" &&
      block.signature !== anthropic.signature
    ) {
      block.signature = anthropic.signature;
      events.push({
        type: "content_block_delta",
        index: open.index,
        delta: { type: "signature_delta", signature: anthropic.signature },
      });
    }
    if (block.type === "thinking" && typeof anthropic?.redactedData === "string") {
      const redacted: AssistantContentBlock = {
        type: "redacted_thinking",
        data: anthropic.redactedData,
        provider_metadata: block.provider_metadata,
      };
      this.#content[this.#content.indexOf(block)] = redacted;
      open.block = redacted;
    }
  }

  #finishToolCall(call: Extract<LanguageModelV3StreamPart, { type: "tool-call" }>, events: ModelStreamEvent[]): void {
    const { toolCallId: id, toolName: name, input: rawInput, providerMetadata: metadata } = call;
    const type = call.providerExecuted ? "server_tool_use" : "tool_use";
    let open = this.#toolBlocks.get(id);
    if (!open) {
      // A call that arrives whole: its text is the one delta (unless it is over the limit).
      events.push(this.#start(id, { type, id, name, input: {} }));
      open = this.#open.get(id) as OpenBlock;
      open.inputBytes = Buffer.byteLength(rawInput);
      if (open.inputBytes <= this.#maxInputBytes) {
        events.push({
          type: "content_block_delta",
          index: open.index,
          delta: { type: "input_json_delta", partial_json: rawInput },
        });
      }
      this.#open.delete(id);
      events.push({ type: "content_block_stop", index: open.index });
    } else if (this.#open.has(id)) {
      this.#open.delete(id);
      events.push({ type: "content_block_stop", index: open.index });
    }
    this.#toolBlocks.delete(id);
    const block = open.block;
    if (block.type !== "tool_use" && block.type !== "server_tool_use") return;
    block.input = this.#parseInput(id, rawInput, open.inputBytes ?? Buffer.byteLength(rawInput));
    // The provider ran its own call: what it made of the arguments is its concern, not the loop's.
    if (block.type === "server_tool_use") this.toolInputProblems.delete(id);
    const extra = meta(metadata);
    if (extra) block.provider_metadata = { ...block.provider_metadata, ...extra };
  }

  /**
   * A provider's web search result: a whole block, streamed as Anthropic streams it (a start
   * carrying all of it, then its stop). OpenAI names the query only here: its call gets it.
   */
  #searchResult(part: Extract<LanguageModelV3StreamPart, { type: "tool-result" }>, events: ModelStreamEvent[]): void {
    const { block, query } = webSearchResultBlock(part, this.#api);
    if (query !== undefined) {
      const call = this.#content.find((known) => known.type === "server_tool_use" && known.id === part.toolCallId);
      if (call?.type === "server_tool_use") call.input = { query };
    }
    const index = this.#content.length;
    this.#content.push(block);
    const { provider_metadata: _omit, ...wire } = block;
    events.push({ type: "content_block_start", index, content_block: wire });
    events.push({ type: "content_block_stop", index });
  }

  /**
   * A Gemini answer's grounding with Google Search, which arrives as metadata at its end: added as
   * one search's blocks (streamed whole, as Anthropic streams a search result), and its citations
   * put on the texts that hold the words they cite. Returns the searches to bill: one per query
   * Google ran (Gemini 3 bills per query; Gemini 2.5 per grounded prompt, which a count of queries
   * over-states when one prompt ran several).
   */
  #grounding(metadata: SharedV3ProviderMetadata | undefined, events: ModelStreamEvent[]): ServerToolUsage | undefined {
    const found = groundingSearch(meta(metadata), `${this.#id}_search`);
    if (!found) return undefined;
    for (const block of [found.call, found.result]) {
      const index = this.#content.length;
      this.#content.push(block);
      const { provider_metadata: _omit, ...wire } = block;
      events.push({ type: "content_block_start", index, content_block: wire });
      events.push({ type: "content_block_stop", index });
    }
    for (const block of this.#content) {
      if (block.type !== "text") continue;
      const cited = found.citations.filter((citation) => block.text.includes(citation.cited_text));
      if (cited.length > 0) block.citations = [...(block.citations ?? []), ...cited];
    }
    return found.queries.length > 0 ? { web_search_requests: found.queries.length, web_fetch_requests: 0 } : undefined;
  }

  /**
   * The call's input, or `{}` with the problem noted. Over-limit text is never parsed, so
   * its size costs nothing beyond what the provider package already holds.
   */
  #parseInput(id: string, rawInput: string, bytes: number): Record<string, unknown> {
    if (bytes > this.#maxInputBytes) {
      this.toolInputProblems.set(id, { kind: "too_large", bytes, limit: this.#maxInputBytes });
      return {};
    }
    const parsed = parseJson(rawInput.trim() === "" ? "{}" : rawInput);
    if (parsed.ok && isObject(parsed.value)) return parsed.value;
    const raw = copyOf(rawInput.slice(0, QUOTED_INPUT_CHARS));
    this.toolInputProblems.set(id, { kind: "invalid_json", raw });
    return {};
  }

  #closeAll(events: ModelStreamEvent[]): void {
    for (const open of this.#open.values()) events.push({ type: "content_block_stop", index: open.index });
    this.#open.clear();
  }
}

function meta(metadata: SharedV3ProviderMetadata | undefined): Metadata | undefined {
  if (!metadata || Object.keys(metadata).length === 0) return undefined;
  return metadata as Metadata;
}

/**
 * A string that shares no memory with `text`: V8 keeps a slice pointing into its parent,
 * and a quote of megabytes of bad arguments must not keep them alive in the history.
 */
function copyOf(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The compaction's entry of Anthropic's `usage.iterations` (which `@ai-sdk/anthropic` passes on
 * as the finish part's `anthropic.iterations`), summed if there are several.
 */
function compactionIteration(metadata: SharedV3ProviderMetadata | undefined): ServerCompactionUsage | undefined {
  const iterations = metadata?.anthropic?.iterations;
  if (!Array.isArray(iterations)) return undefined;
  let found: ServerCompactionUsage | undefined;
  for (const iteration of iterations) {
    if (typeof iteration !== "object" || iteration === null || Array.isArray(iteration)) continue;
    const { type, inputTokens, outputTokens } = iteration as Record<string, unknown>;
    if (type !== "compaction" || typeof inputTokens !== "number" || typeof outputTokens !== "number") continue;
    found = {
      inputTokens: (found?.inputTokens ?? 0) + inputTokens,
      outputTokens: (found?.outputTokens ?? 0) + outputTokens,
    };
  }
  return found;
}

/** The usage with the provider's own tool requests (its searches), when it made any. */
function withServerTools(usage: Usage, serverTools: Usage["server_tool_use"]): Usage {
  return serverTools ? { ...usage, server_tool_use: serverTools } : usage;
}

function withoutCompaction(usage: Usage, compaction: ServerCompactionUsage | undefined): Usage {
  if (!compaction) return usage;
  return {
    ...usage,
    input_tokens: Math.max(0, usage.input_tokens - compaction.inputTokens),
    output_tokens: Math.max(0, usage.output_tokens - compaction.outputTokens),
  };
}
