import type { LanguageModelV3FinishReason, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { ToolNameResolver } from "./mcp-names.js";
import { type ParsedEvent, TextProtocolParser } from "./parser.js";
import { type MalformedCall, TEXT_PROTOCOL_METADATA } from "./rewrite-prompt.js";
import { readToolBlock, refused, type TextProtocolRules } from "./tool-block.js";

/**
 * Turns the model's text into AI SDK stream parts: text outside blocks becomes text parts,
 * thinking becomes reasoning parts and each `<tool>` block one `tool-call` part, numbered
 * `${callIdPrefix}_0`, `_1`, ... in order. A malformed block's call carries its raw text
 * and the problem under the `textProtocol` provider metadata.
 */
export class TextProtocolEmitter {
  readonly #parser = new TextProtocolParser();
  readonly #callIdPrefix: string;
  readonly #resolveName: ToolNameResolver | undefined;
  #blocks = 0;
  #calls = 0;
  #textId = "";
  #reasoningId = "";

  readonly #rules: TextProtocolRules;

  /** `resolveName` maps a block's `server_name` and `tool_name` to a tool (default: the name as written). */
  constructor(callIdPrefix: string, resolveName?: ToolNameResolver, rules: TextProtocolRules = {}) {
    this.#callIdPrefix = callIdPrefix;
    this.#resolveName = resolveName;
    this.#rules = rules;
  }

  /** Tool calls emitted so far. */
  get calls(): number {
    return this.#calls;
  }

  push(delta: string): LanguageModelV3StreamPart[] {
    return this.#convert(this.#parser.push(delta), true);
  }

  /** The text is complete. With `calls: false` (a stream that broke off) a final unclosed block is dropped. */
  end(options: { calls?: boolean } = {}): LanguageModelV3StreamPart[] {
    return this.#convert(this.#parser.end(), options.calls ?? true);
  }

  /** The finish reason to report: tool calls when any block was read, else the model's own. */
  finishReason(inner: LanguageModelV3FinishReason): LanguageModelV3FinishReason {
    return this.#calls > 0 ? { unified: "tool-calls", raw: "tool_use" } : inner;
  }

  #convert(events: ParsedEvent[], calls: boolean): LanguageModelV3StreamPart[] {
    const parts: LanguageModelV3StreamPart[] = [];
    for (const event of events) {
      const part = this.#part(event, calls);
      if (part) parts.push(part);
    }
    return parts;
  }

  #part(event: ParsedEvent, calls: boolean): LanguageModelV3StreamPart | undefined {
    switch (event.type) {
      case "text-start":
        this.#textId = `text-protocol-text-${this.#blocks++}`;
        return { type: "text-start", id: this.#textId };
      case "text-delta":
        return { type: "text-delta", id: this.#textId, delta: event.text };
      case "text-end":
        return { type: "text-end", id: this.#textId };
      case "reasoning-start":
        this.#reasoningId = `text-protocol-reasoning-${this.#blocks++}`;
        return { type: "reasoning-start", id: this.#reasoningId };
      case "reasoning-delta":
        return { type: "reasoning-delta", id: this.#reasoningId, delta: event.text };
      case "reasoning-end":
        return { type: "reasoning-end", id: this.#reasoningId };
      case "tool":
        return calls || event.closed ? this.#toolCall(event.body, event.closed) : undefined;
    }
  }

  #toolCall(body: string, closed: boolean): LanguageModelV3StreamPart {
    const call =
      this.#rules.oneCallPerTurn && this.#calls > 0
        ? refused(
            readToolBlock(body, closed, this.#resolveName, this.#rules).toolName,
            body.trim(),
            "Only one tool call per answer: this one was not run. Make it in your next answer, once you have the first call's result.",
          )
        : readToolBlock(body, closed, this.#resolveName, this.#rules);
    const part: LanguageModelV3StreamPart = {
      type: "tool-call",
      toolCallId: `${this.#callIdPrefix}_${this.#calls++}`,
      toolName: call.toolName,
      input: call.input,
    };
    if (call.problem === undefined) return part;
    const malformed: MalformedCall = { raw: body, closed, problem: call.problem };
    return { ...part, providerMetadata: { [TEXT_PROTOCOL_METADATA]: { ...malformed } } };
  }
}
