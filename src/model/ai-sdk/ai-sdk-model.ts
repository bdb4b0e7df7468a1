import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { classifyModelError, streamEndedEarly } from "../classify-error.js";
import type { Model, ModelApi, ModelRequest, ModelResponse, ModelStreamEvent } from "../model.js";
import type { ModelInfo } from "../pricing.js";
import { MessageAssembler } from "./assemble-message.js";
import { callTools, toCallOptions } from "./call-options.js";
import { wrapFreeformCalls } from "./freeform-calls.js";

/** What Gyre knows about an AI SDK model beyond the model object itself. */
export interface AiSdkModelIdentity {
  id: string;
  provider: string;
  modelId: string;
  info: ModelInfo | undefined;
  api: ModelApi;
  /** The model takes freeform (OpenAI `custom`) tools as such (default: they go as function tools). */
  freeformTools?: boolean;
  /**
   * The provider runs its own web search, which stands in for a search tool (Anthropic's Messages
   * API, OpenAI's Responses API); default: a search tool goes as a function tool.
   */
  serverSearch?: boolean;
}

let messageCounter = 0;

function newMessageId(): string {
  return `msg_gyre_${Date.now().toString(36)}_${++messageCounter}`;
}

/**
 * A {@link Model} over an AI SDK language model (`LanguageModelV3`): converts the request to
 * the AI SDK's prompt and tools, streams with `doStream`, and assembles the provider-neutral
 * stream parts into Anthropic events and an assistant message.
 */
export class AiSdkModel implements Model {
  readonly id: string;
  readonly provider: string;
  readonly modelId: string;
  readonly info: ModelInfo | undefined;
  readonly api: ModelApi;
  readonly searchesWeb: boolean;
  readonly #freeformTools: boolean;

  constructor(
    readonly languageModel: LanguageModelV3,
    identity: AiSdkModelIdentity,
  ) {
    this.id = identity.id;
    this.provider = identity.provider;
    this.modelId = identity.modelId;
    this.info = identity.info;
    this.api = identity.api;
    this.#freeformTools = identity.freeformTools ?? false;
    this.searchesWeb = identity.serverSearch ?? false;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent, ModelResponse> {
    const assembler = new MessageAssembler(
      request.messageId ?? newMessageId(),
      this.modelId,
      request.maxToolInputBytes,
      this.api,
    );
    try {
      const tools = callTools(request.tools, {
        freeformTools: this.#freeformTools,
        ...(this.searchesWeb && { searchApi: this.api }),
      });
      const { stream } = await this.languageModel.doStream(toCallOptions(request, tools, this.api));
      for await (const part of wrapFreeformCalls(stream, tools.freeform) as AsyncIterable<LanguageModelV3StreamPart>) {
        if (part.type === "error") throw part.error;
        for (const event of assembler.push(part)) yield event;
      }
    } catch (thrown) {
      throw classifyModelError(thrown, { aborted: request.signal.aborted, partial: assembler.partial() });
    }
    if (!assembler.finished) {
      throw classifyModelError(streamEndedEarly(), { aborted: request.signal.aborted, partial: assembler.partial() });
    }
    return {
      message: assembler.message(),
      toolInputProblems: assembler.toolInputProblems,
      ...(assembler.serverCompaction && { serverCompaction: assembler.serverCompaction }),
    };
  }
}

/** The wire API of an AI SDK model Gyre did not create, from its provider id (`anthropic.messages`). */
export function apiOfLanguageModel(model: LanguageModelV3): ModelApi {
  const [family, api] = model.provider.split(".");
  if (family === "anthropic") return "anthropic";
  if (family === "openai" || family === "azure") return api === "chat" ? "openai-chat" : "openai-responses";
  if (family === "google") return "google";
  return "other";
}
