import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ProviderTool,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import type { CallSettings, ModelTool } from "../model.js";
import type { ProviderOptions } from "../provider-options.js";

/*
 * Freeform (OpenAI `custom`) tools for a model that takes them natively. Gyre's tool calls carry
 * an object, so a freeform call's raw text is `{ input: text }` everywhere above the adapter: the
 * text goes to the provider as it is, and comes back from it wrapped.
 */

/** The AI SDK's provider tool for a freeform tool (`@ai-sdk/openai`'s `customTool`). */
export function customTool(
  tool: ModelTool & { freeform: NonNullable<ModelTool["freeform"]> },
): LanguageModelV3ProviderTool {
  const { description, format } = tool.freeform;
  return {
    type: "provider",
    id: "openai.custom",
    name: tool.name,
    args: { name: tool.name, ...(description && { description }), ...(format && { format }) },
  };
}

/**
 * A tool choice that forces one of `names` (freeform tools, and functions named like OpenAI's
 * hosted tools) as `allowedTools` of that one tool, required: the AI SDK sends a forced tool of
 * some names (`apply_patch`, `web_search`) as OpenAI's hosted tool of that type.
 * Azure's options are read under `azure` when there are any, else under `openai`.
 */
export function freeformToolChoice(
  choice: CallSettings["toolChoice"],
  names: ReadonlySet<string>,
  options: ProviderOptions | undefined,
): Pick<LanguageModelV3CallOptions, "toolChoice" | "providerOptions"> {
  if (choice?.type !== "tool" || !names.has(choice.toolName)) return { toolChoice: choice, providerOptions: options };
  const allowedTools = { toolNames: [choice.toolName], mode: "required" };
  const merged: ProviderOptions = { ...options, openai: { ...options?.openai, allowedTools } };
  if (options?.azure) merged.azure = { ...options.azure, allowedTools };
  return { toolChoice: { type: "required" }, providerOptions: merged };
}

/** The prompt with each call of a freeform tool (`names`) carrying its raw text, as the provider sends it back. */
export function withRawFreeformInputs(
  prompt: LanguageModelV3Prompt,
  names: ReadonlySet<string>,
): LanguageModelV3Prompt {
  if (names.size === 0) return prompt;
  return prompt.map((message): LanguageModelV3Message => {
    if (message.role !== "assistant") return message;
    if (!message.content.some((part) => part.type === "tool-call" && names.has(part.toolName))) return message;
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === "tool-call" && names.has(part.toolName) ? { ...part, input: rawInput(part.input) } : part,
      ),
    };
  });
}

function rawInput(input: unknown): unknown {
  const text = (input as { input?: unknown } | null)?.input;
  return typeof text === "string" ? text : input;
}

/**
 * The model's stream with freeform calls as JSON `{"input": text}`: the provider streams their
 * raw text (`inputEncoding: "text"`) and ends with the text as a JSON string; the assembler and
 * everything after it read arguments as JSON.
 */
export function wrapFreeformCalls(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  names: ReadonlySet<string>,
): ReadableStream<LanguageModelV3StreamPart> {
  if (names.size === 0) return stream;
  const streaming = new Set<string>();
  return stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      transform(part, controller) {
        if (part.type === "tool-input-start" && part.inputEncoding === "text") {
          streaming.add(part.id);
          controller.enqueue(part);
          controller.enqueue({ type: "tool-input-delta", id: part.id, delta: '{"input":"' });
        } else if (part.type === "tool-input-delta" && streaming.has(part.id)) {
          controller.enqueue({ ...part, delta: JSON.stringify(part.delta).slice(1, -1) });
        } else if (part.type === "tool-input-end" && streaming.delete(part.id)) {
          controller.enqueue({ type: "tool-input-delta", id: part.id, delta: '"}' });
          controller.enqueue(part);
        } else if (part.type === "tool-call" && names.has(part.toolName)) {
          controller.enqueue({ ...part, input: wrappedInput(part.input) });
        } else {
          controller.enqueue(part);
        }
      },
    }),
  );
}

/** A freeform call's input (a JSON string) as `{"input": text}`; a function call's (an object) as it is. */
function wrappedInput(input: string): string {
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === "string" ? JSON.stringify({ input: value }) : input;
  } catch {
    return input;
  }
}
