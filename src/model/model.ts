import type { AnthropicStreamEvent, APIAssistantMessage, HistoryEntry } from "../protocol/index.js";
import type { ModelInfo } from "./pricing.js";
import type { ProviderOptions } from "./provider-options.js";

/**
 * A language model as the loop sees it: our own request and stream types in, Anthropic-shaped
 * events and an assistant message out. Provider wire protocols live behind it (see
 * `resolveModel`, which adapts AI SDK language models).
 */
export interface Model {
  /** `provider/model-id`, as reported in messages and `modelUsage`. */
  readonly id: string;
  /** The provider name before the `/` (`anthropic`, `ollama`, a user-configured name). */
  readonly provider: string;
  readonly modelId: string;
  /** Pricing and limits, when the pricing table knows the model. */
  readonly info: ModelInfo | undefined;
  /** The wire API the model speaks; provider-specific features key off it, never off names. */
  readonly api: ModelApi;
  /** Call settings this model adds to every request (a `gyre serve` client's sampling), for tracing to report. */
  readonly settings?: CallSettings | undefined;
  /**
   * The provider runs its own web search (Anthropic's Messages API, OpenAI's Responses API, the
   * Gemini API's grounding with Google Search): a tool with `serverSearch` is sent as that search
   * (to Gemini only in a request with no other tool). Absent: such a tool goes as a function tool.
   */
  readonly searchesWeb?: boolean;
  /**
   * Send one request and stream the answer: yields Anthropic raw stream events
   * (`message_start`, `content_block_delta`, …) and returns the assembled message. Fails
   * with a {@link ModelCallError} whose code classifies the failure and whose `partial`
   * holds what streamed before it; a stream that ends before the answer is complete is a
   * retryable `model_stream_error`.
   */
  stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent, ModelResponse>;
}

/**
 * `anthropic`: Anthropic's Messages API; `openai-responses` / `openai-chat`: OpenAI's
 * Responses and Chat Completions APIs; `openai-compatible`: a Chat Completions server of
 * another vendor; `google`: the Gemini API; `other`: an AI SDK model of a provider Gyre does not configure itself.
 */
export type ModelApi = "anthropic" | "openai-responses" | "openai-chat" | "openai-compatible" | "google" | "other";

/** What the model is asked: the conversation, the tools it may call and call settings. */
export interface ModelRequest {
  system?: string;
  history: readonly HistoryEntry[];
  /** Pass the same array on every call of a run: adapters cache their conversion of it. */
  tools: readonly ModelTool[];
  maxOutputTokens?: number;
  providerOptions?: ProviderOptions;
  /** UTF-8 bytes one tool call's arguments may have; larger calls get `{}` and a problem. */
  maxToolInputBytes?: number;
  /** The answer's message id when the provider gives none (default: a fresh `msg_gyre_…`). */
  messageId?: string;
  /** Settings a caller passes through to the provider as they are (the server's request fields). */
  settings?: CallSettings;
  signal: AbortSignal;
}

/**
 * Call settings beyond the loop's own: which tool the model must (not) call, sampling, and a
 * JSON answer. The loop sets none of them; `gyre serve` passes a client's request through.
 */
export interface CallSettings {
  /** `auto`, `none` (no call), `required` (some call), or a call of the named tool. */
  toolChoice?: { type: "auto" | "none" | "required" } | { type: "tool"; toolName: string };
  /** Sampling temperature, as the provider takes it. */
  temperature?: number;
  /** Nucleus sampling, as the provider takes it. */
  topP?: number;
  /** Answer with JSON, matching `schema` when given (OpenAI `json_schema`, Anthropic's structured output). */
  responseFormat?: { type: "json"; schema?: Record<string, unknown>; name?: string; description?: string };
}

/** A tool as the model is told about it: name, description and JSON Schema of its input. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** For an MCP tool: its server and its name there (text-protocol models list tools by server). */
  mcp?: { server: string; tool: string };
  /**
   * A freeform tool (OpenAI's `custom`): its calls carry `{ input: string }`. A model with
   * freeform tools (OpenAI's Responses API) gets it as one, with this description and format;
   * others get a function tool of `inputSchema` and `description`.
   */
  freeform?: FreeformTool;
  /**
   * The tool searches the web, and a model whose provider searches itself (Anthropic's
   * `web_search` server tool, OpenAI Responses' `web_search`, Gemini's Google Search when it is
   * the request's only tool) gets the provider's search instead, with these options; the
   * provider runs those calls, the loop never sees them as calls of this tool. Other models get
   * it as a function tool.
   */
  serverSearch?: ServerSearchOptions;
}

/** The options of a provider's own web search, as WebSearch's settings give them. */
export interface ServerSearchOptions {
  /** Only results from these domains (and their subdomains). */
  allowedDomains?: readonly string[];
  /** No results from these domains. */
  blockedDomains?: readonly string[];
  /** Searches one answer may make (Anthropic's `max_uses`). */
  maxUses?: number;
}

/** What a model with freeform tools is told of one: its own description, and the format of its input. */
export interface FreeformTool {
  /** What the tool does, for the model (without the grammar: the format carries it). */
  description: string;
  /** Free text (the default), or text that a Lark or regular-expression grammar accepts. */
  format?: FreeformFormat;
}

/** The input format of a freeform tool, as OpenAI's `custom` tools take it. */
export type FreeformFormat = { type: "text" } | { type: "grammar"; syntax: "lark" | "regex"; definition: string };

/** An Anthropic raw stream event, as carried by `stream_event` messages. */
export type ModelStreamEvent = AnthropicStreamEvent;

export interface ModelResponse {
  message: APIAssistantMessage;
  /** Calls whose arguments were not used (their `input` is `{}`), by tool call id. */
  toolInputProblems: ReadonlyMap<string, ToolInputProblem>;
  /**
   * The provider compacted the context before answering (Anthropic's server-side compaction),
   * with the tokens the compaction itself read and wrote as the provider reported them (its
   * `usage.iterations`); absent when it did not, or did not report them.
   */
  serverCompaction?: ServerCompactionUsage;
}

/** Tokens of a server-side compaction: `inputTokens` is the context before it. */
export interface ServerCompactionUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Why a tool call's arguments did not become its input (the block's `input` is then `{}`). */
export type ToolInputProblem =
  /** `raw`: the start of the text, enough to show the model what it sent. */
  { kind: "invalid_json"; raw: string } | { kind: "too_large"; bytes: number; limit: number };

/** Run a model stream to its end, dropping the events; resolves to its response. */
export async function responseOf(stream: AsyncIterator<ModelStreamEvent, ModelResponse>): Promise<ModelResponse> {
  for (;;) {
    const next = await stream.next();
    if (next.done) return next.value;
  }
}
