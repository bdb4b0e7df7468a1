import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { callIdPrefix } from "./call-id.js";
import { TextProtocolEmitter } from "./emitter.js";
import { type ToolNameResolver, toolNameResolver } from "./mcp-names.js";
import { rewritePrompt } from "./rewrite-prompt.js";
import { toolProtocolSection } from "./system-section.js";
import type { TextProtocolRules } from "./tool-block.js";

const WRAPPED = Symbol.for("gyre.textProtocol");

/**
 * Give a model without native tool calling the loop's tool protocol, in text. The wrapper
 * drops `tools`/`toolChoice` from each call, teaches the `<tool>` block format in the
 * system message, rewrites tool calls and results in the history as text, and reads the
 * answer back: text stays text, `<thinking>` sections become reasoning, and each `<tool>`
 * block becomes a `tool-call` (finish reason `tool-calls`, raw `tool_use`). Malformed
 * blocks still become calls that the loop answers with an error (see `readToolBlock`).
 *
 * The wrapped model keeps the inner model's `provider` and `modelId` (so pricing still
 * applies); wrapping a wrapped model returns it unchanged.
 */
export function wrapTextProtocol(model: LanguageModelV3, rules: TextProtocolRules = {}): LanguageModelV3 {
  if (isTextProtocolModel(model)) return model;
  const wrapped: LanguageModelV3 & { [WRAPPED]: true } = {
    [WRAPPED]: true,
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    async doGenerate(options) {
      const { callOptions, idPrefix, resolveName } = prepare(options, rules);
      const result = await model.doGenerate(callOptions);
      return readGenerated(result, new TextProtocolEmitter(idPrefix, resolveName, rules));
    },
    async doStream(options) {
      const { callOptions, idPrefix, resolveName } = prepare(options, rules);
      const result = await model.doStream(callOptions);
      const emitter = new TextProtocolEmitter(idPrefix, resolveName, rules);
      return { ...result, stream: result.stream.pipeThrough(readStream(emitter)) };
    },
  };
  return wrapped;
}

/** Whether `model` came from {@link wrapTextProtocol}. */
export function isTextProtocolModel(model: LanguageModelV3): boolean {
  return (model as { [WRAPPED]?: true })[WRAPPED] === true;
}

function prepare(
  options: LanguageModelV3CallOptions,
  rules: TextProtocolRules,
): {
  callOptions: LanguageModelV3CallOptions;
  idPrefix: string;
  resolveName: ToolNameResolver;
} {
  const { tools, toolChoice, ...rest } = options;
  const functions = (tools ?? []).filter((tool): tool is LanguageModelV3FunctionTool => tool.type === "function");
  const section =
    functions.length === 0 || toolChoice?.type === "none"
      ? undefined
      : toolProtocolSection(functions, toolChoice, rules);
  const prompt = rewritePrompt(options.prompt, section);
  return { callOptions: { ...rest, prompt }, idPrefix: callIdPrefix(prompt), resolveName: toolNameResolver(functions) };
}

function readStream(
  emitter: TextProtocolEmitter,
): TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart> {
  let finished = false;
  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        // Text ids are the emitter's: one model text run may hold many blocks.
        case "text-start":
        case "text-end":
          return;
        case "text-delta":
          for (const out of emitter.push(part.delta)) controller.enqueue(out);
          return;
        case "finish":
          finished = true;
          for (const out of emitter.end()) controller.enqueue(out);
          controller.enqueue({ ...part, finishReason: emitter.finishReason(part.finishReason) });
          return;
        default:
          controller.enqueue(part);
      }
    },
    flush(controller) {
      // A stream without `finish` broke off: keep its text, but a half-written call is no call.
      if (!finished) for (const out of emitter.end({ calls: false })) controller.enqueue(out);
    },
  });
}

function readGenerated(
  result: LanguageModelV3GenerateResult,
  emitter: TextProtocolEmitter,
): LanguageModelV3GenerateResult {
  const parts: LanguageModelV3StreamPart[] = [];
  const passed: LanguageModelV3Content[] = [];
  for (const item of result.content) {
    if (item.type === "text") parts.push(...emitter.push(item.text));
    else passed.push(item);
  }
  parts.push(...emitter.end());
  return {
    ...result,
    content: [...passed, ...toContent(parts)],
    finishReason: emitter.finishReason(result.finishReason),
  };
}

/** Fold stream parts back into whole content items, in order. */
function toContent(parts: readonly LanguageModelV3StreamPart[]): LanguageModelV3Content[] {
  const content: LanguageModelV3Content[] = [];
  const open = new Map<string, { text: string }>();
  for (const part of parts) {
    switch (part.type) {
      case "text-start":
      case "reasoning-start": {
        const item: { type: "text" | "reasoning"; text: string } = {
          type: part.type === "text-start" ? "text" : "reasoning",
          text: "",
        };
        open.set(part.id, item);
        content.push(item);
        break;
      }
      case "text-delta":
      case "reasoning-delta": {
        const item = open.get(part.id);
        if (item) item.text += part.delta;
        break;
      }
      case "tool-call":
        content.push(part);
        break;
      default:
        break;
    }
  }
  return content;
}
