import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type {
  AssistantContentBlock,
  HistoryEntry,
  ImageBlock,
  TextBlock,
  ToolResultBlock,
  UserContentBlock,
} from "../../protocol/index.js";
import type { ModelApi } from "../model.js";
import { type ServerSearchReplay, searchOrigins, serverSearchParts } from "./server-search-replay.js";

/**
 * The prompt built for a history array so far. The loop only ever appends to its history
 * (compaction replaces the array), so each turn converts just the new entries.
 */
interface PromptCache {
  system: string | undefined;
  api: ModelApi | undefined;
  entries: number;
  lastEntry: HistoryEntry | undefined;
  prompt: LanguageModelV3Message[];
  toolNames: Map<string, string>;
}

const caches = new WeakMap<readonly HistoryEntry[], PromptCache>();

/**
 * Convert the conversation to the AI SDK's provider-neutral prompt. Tool results move to
 * `tool` messages (that is where every provider package expects them) and each result gets
 * its tool name from the call it answers. Work done for earlier turns is reused, so a long
 * run does not redo its whole history on every model call.
 */
export function toPrompt(
  system: string | undefined,
  history: readonly HistoryEntry[],
  api?: ModelApi,
): LanguageModelV3Prompt {
  let cache = caches.get(history);
  if (!cache || cache.system !== system || cache.api !== api || !extends_(cache, history)) {
    cache = {
      system,
      api,
      entries: 0,
      lastEntry: undefined,
      prompt: system ? [{ role: "system", content: system }] : [],
      toolNames: new Map(),
    };
    caches.set(history, cache);
  }
  for (let index = cache.entries; index < history.length; index++) {
    const entry = history[index] as HistoryEntry;
    if (entry.role === "assistant") {
      for (const block of entry.message.content)
        if (block.type === "tool_use") cache.toolNames.set(block.id, block.name);
    }
    for (const message of convertEntry(entry, cache.toolNames, api)) cache.prompt.push(message);
  }
  cache.entries = history.length;
  cache.lastEntry = history.at(-1);
  // A copy, so callers (and providers) can never change what later turns build on.
  return cache.prompt.slice();
}

function extends_(cache: PromptCache, history: readonly HistoryEntry[]): boolean {
  return history.length >= cache.entries && (cache.entries === 0 || history[cache.entries - 1] === cache.lastEntry);
}

function convertEntry(
  entry: HistoryEntry,
  toolNames: Map<string, string>,
  api: ModelApi | undefined,
): LanguageModelV3Message[] {
  if (entry.role === "user") return userMessages(entry.content, toolNames);
  const replay: ServerSearchReplay = { api, origins: searchOrigins(entry.message.content), queries: new Map() };
  const content = entry.message.content.flatMap((block) => assistantPart(block, replay));
  return content.length > 0 ? [{ role: "assistant", content }] : [];
}

type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];

function assistantPart(block: AssistantContentBlock, replay: ServerSearchReplay): AssistantPart[] {
  const providerOptions = block.provider_metadata as SharedV3ProviderOptions | undefined;
  switch (block.type) {
    case "server_tool_use":
    case "web_search_tool_result":
      return serverSearchParts(block, replay);
    case "text":
      return block.text.length > 0 ? [{ type: "text", text: block.text, providerOptions }] : [];
    case "thinking":
      return [
        {
          type: "reasoning",
          text: block.thinking,
          providerOptions: block.signature
            ? mergeOptions(providerOptions, { anthropic: { signature: block.signature } })
            : providerOptions,
        },
      ];
    case "redacted_thinking":
      return [
        {
          type: "reasoning",
          text: "",
          providerOptions: mergeOptions(providerOptions, { anthropic: { redactedData: block.data } }),
        },
      ];
    case "tool_use":
      return [
        {
          type: "tool-call",
          toolCallId: block.id,
          toolName: block.name,
          input: block.input ?? {},
          providerOptions,
        },
      ];
  }
}

function userMessages(content: string | UserContentBlock[], toolNames: Map<string, string>): LanguageModelV3Message[] {
  if (typeof content === "string") return [{ role: "user", content: [{ type: "text", text: content }] }];
  const results = content.filter((block): block is ToolResultBlock => block.type === "tool_result");
  const rest = content.filter((block): block is TextBlock | ImageBlock => block.type !== "tool_result");
  const messages: LanguageModelV3Message[] = [];
  if (results.length > 0) {
    messages.push({
      role: "tool",
      content: results.map((block) => ({
        type: "tool-result",
        toolCallId: block.tool_use_id,
        toolName: toolNames.get(block.tool_use_id) ?? "unknown",
        output: toolOutput(block),
      })),
    });
  }
  if (rest.length > 0) {
    messages.push({
      role: "user",
      content: rest.map((block) =>
        block.type === "text"
          ? { type: "text", text: block.text }
          : { type: "file", mediaType: block.source.media_type, data: block.source.data },
      ),
    });
  }
  return messages;
}

function toolOutput(block: ToolResultBlock): LanguageModelV3ToolResultOutput {
  if (typeof block.content === "string") {
    return block.is_error ? { type: "error-text", value: block.content } : { type: "text", value: block.content };
  }
  const hasImage = block.content.some((part) => part.type === "image");
  if (!hasImage) {
    const text = block.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    return block.is_error ? { type: "error-text", value: text } : { type: "text", value: text };
  }
  return {
    type: "content",
    value: block.content.map((part) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : // Images as images: every provider package drops or mis-sends an image given as file data.
          { type: "image-data", data: part.source.data, mediaType: part.source.media_type },
    ),
  };
}

function mergeOptions(
  base: SharedV3ProviderOptions | undefined,
  extra: SharedV3ProviderOptions,
): SharedV3ProviderOptions {
  const out: SharedV3ProviderOptions = { ...base };
  for (const [provider, values] of Object.entries(extra)) out[provider] = { ...out[provider], ...values };
  return out;
}
