import { createAnthropic } from "@ai-sdk/anthropic";
import { createAzure } from "@ai-sdk/azure";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { MockLLMServer } from "../src/testing/index.js";

/** The real provider clients, pointed at a mock server. */
export type ClientName = "anthropic" | "openai-responses" | "openai-chat" | "openai-compatible";
export const CLIENTS: ClientName[] = ["anthropic", "openai-responses", "openai-chat", "openai-compatible"];

/** Clients whose wire format is one of the above at other paths (Azure), or has tests of its own (Gemini). */
export type OtherClientName = "google" | "azure" | "azure-chat";

export function otherClient(name: OtherClientName, server: MockLLMServer): LanguageModelV3 {
  switch (name) {
    case "google":
      return createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey: "test-key" })("gemini-2.5-flash");
    case "azure":
      return createAzure({ baseURL: `${server.url}/openai/v1`, apiKey: "test-key" }).responses("my-gpt-5");
    case "azure-chat":
      return createAzure({ baseURL: `${server.url}/openai`, apiKey: "test-key", useDeploymentBasedUrls: true }).chat(
        "my-gpt-4o",
      );
  }
}

export function client(name: ClientName, server: MockLLMServer): LanguageModelV3 {
  const settings = { baseURL: server.baseURL, apiKey: "test-key" };
  switch (name) {
    case "anthropic":
      return createAnthropic(settings)("claude-sonnet-4-5");
    case "openai-responses":
      return createOpenAI(settings).responses("gpt-5");
    case "openai-chat":
      return createOpenAI(settings).chat("gpt-4o");
    case "openai-compatible":
      return createOpenAICompatible({ ...settings, name: "mock", includeUsage: true }).chatModel("mock-model");
  }
}

export function userPrompt(text: string): LanguageModelV3Prompt {
  return [{ role: "user", content: [{ type: "text", text }] }];
}

export const readTool: LanguageModelV3FunctionTool = {
  type: "function",
  name: "Read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
};

export function callOptions(prompt: LanguageModelV3Prompt = userPrompt("hi")): LanguageModelV3CallOptions {
  return { prompt, tools: [readTool] };
}

/** Read a stream to its end; a stream error ends reading and is returned in `thrown`. */
export async function readStream(
  stream: ReadableStream<LanguageModelV3StreamPart>,
): Promise<{ parts: LanguageModelV3StreamPart[]; thrown?: unknown }> {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { parts };
      parts.push(value);
    }
  } catch (thrown) {
    return { parts, thrown };
  }
}

export interface StreamSummary {
  text: string;
  reasoning: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: string }>;
  /** Provider metadata carried by reasoning parts (signatures), in order. */
  reasoningMetadata: unknown[];
  finishReason: LanguageModelV3FinishReason | undefined;
  usage: LanguageModelV3Usage | undefined;
  errors: unknown[];
  thrown?: unknown;
  parts: LanguageModelV3StreamPart[];
}

export function summarize(parts: LanguageModelV3StreamPart[], thrown?: unknown): StreamSummary {
  const summary: StreamSummary = {
    text: "",
    reasoning: "",
    toolCalls: [],
    reasoningMetadata: [],
    finishReason: undefined,
    usage: undefined,
    errors: [],
    parts,
    ...(thrown !== undefined && { thrown }),
  };
  for (const part of parts) {
    if (part.type === "text-delta") summary.text += part.delta;
    if (part.type === "reasoning-delta") summary.reasoning += part.delta;
    if (part.type === "reasoning-delta" && part.providerMetadata) summary.reasoningMetadata.push(part.providerMetadata);
    if (part.type === "tool-call") {
      summary.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
    if (part.type === "finish") {
      summary.finishReason = part.finishReason;
      summary.usage = part.usage;
    }
    if (part.type === "error") summary.errors.push(part.error);
  }
  return summary;
}

/** `doStream` through the real client and summarize what it emitted. */
export async function streamTurn(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions = callOptions(),
): Promise<StreamSummary> {
  const { stream } = await model.doStream(options);
  const { parts, thrown } = await readStream(stream);
  return summarize(parts, thrown);
}

/** `doGenerate` through the real client, summarized like a stream. */
export async function generateTurn(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions = callOptions(),
): Promise<StreamSummary> {
  const result = await model.doGenerate(options);
  const summary: StreamSummary = {
    text: "",
    reasoning: "",
    toolCalls: [],
    reasoningMetadata: [],
    finishReason: result.finishReason,
    usage: result.usage,
    errors: [],
    parts: [],
  };
  for (const part of result.content) {
    if (part.type === "text") summary.text += part.text;
    if (part.type === "reasoning") summary.reasoning += part.text;
    if (part.type === "reasoning" && part.providerMetadata) summary.reasoningMetadata.push(part.providerMetadata);
    if (part.type === "tool-call") {
      summary.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
  }
  return summary;
}
