import { type Span, SpanKind } from "@opentelemetry/api";
import type { APIAssistantMessage } from "../protocol/index.js";
import { ATTR } from "./attributes.js";
import { providerName } from "./attributes.js";
import { contentAttribute } from "./content.js";
import { errorType, failSpan, setUsage, type TraceScope } from "./span-helpers.js";
import { type ChatMeasure, type GenAiInstruments, recordChat } from "./metrics.js";

/** The model a request goes to, as its span names it. */
export interface ChatModel {
  /** Gyre's provider name (`anthropic`, `openai`, a configured one). */
  provider: string;
  /** The model's id at the provider. */
  modelId: string;
  /** Sampling settings added to every request (`gen_ai.request.temperature`, `top_p`). */
  settings?: { temperature?: number | undefined; topP?: number | undefined } | undefined;
}

/** What a request carries that its span records (content only when opted in). */
export interface ChatRequest {
  maxOutputTokens?: number | undefined;
  system?: string | undefined;
  history?: readonly unknown[] | undefined;
}

/**
 * One model request's `chat {model}` span: a CLIENT span with the request's model and limits
 * and the provider's answer (response id and model, finish reason, usage exactly as reported).
 * A request that is retried ends failed with its error and the attempt it was; the retry is a
 * span of its own.
 */
export class ChatSpan {
  readonly #span: Span;
  readonly #recording: boolean;
  readonly #capture: boolean;
  readonly #secrets: readonly string[];
  readonly #instruments: GenAiInstruments;
  readonly #model: ChatModel;
  readonly #started = performance.now();
  #ended = false;

  constructor(tracing: TraceScope, model: ChatModel, request: ChatRequest, attempt: number) {
    const span = tracing.tracer.startSpan(`chat ${model.modelId}`, { kind: SpanKind.CLIENT }, tracing.context);
    this.#span = span;
    this.#recording = span.isRecording();
    this.#capture = tracing.captureContent;
    this.#secrets = tracing.secrets;
    this.#instruments = tracing.instruments;
    this.#model = model;
    if (!this.#recording) return;
    span.setAttribute(ATTR.operationName, "chat");
    span.setAttribute(ATTR.providerName, providerName(model.provider));
    span.setAttribute(ATTR.requestModel, model.modelId);
    if (request.maxOutputTokens !== undefined) span.setAttribute(ATTR.requestMaxTokens, request.maxOutputTokens);
    const settings = model.settings;
    if (settings?.temperature !== undefined) span.setAttribute(ATTR.requestTemperature, settings.temperature);
    if (settings?.topP !== undefined) span.setAttribute(ATTR.requestTopP, settings.topP);
    if (attempt > 0) span.setAttribute(ATTR.retryAttempt, attempt);
    if (this.#capture) {
      if (request.system)
        span.setAttribute(ATTR.systemInstructions, contentAttribute(request.system, { secrets: tracing.secrets }));
      if (request.history)
        span.setAttribute(ATTR.inputMessages, contentAttribute(request.history, { secrets: tracing.secrets }));
    }
  }

  /** The model answered. */
  answered(message: APIAssistantMessage): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    if (this.#recording) {
      span.setAttribute(ATTR.responseId, message.id);
      span.setAttribute(ATTR.responseModel, message.model);
      if (message.stop_reason !== null) span.setAttribute(ATTR.responseFinishReasons, [message.stop_reason]);
      setUsage(span, message.usage);
      if (this.#capture)
        span.setAttribute(ATTR.outputMessages, contentAttribute([message], { secrets: this.#secrets }));
    }
    span.end();
    this.#measure({ responseModel: message.model, usage: message.usage });
  }

  /** The request failed (`retrying`: another attempt follows), or was aborted. */
  failed(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#recording) failSpan(this.#span, error, errorType(error));
    this.#span.end();
    this.#measure({ errorType: errorType(error) });
  }

  #measure(outcome: Pick<ChatMeasure, "responseModel" | "usage" | "errorType">): void {
    recordChat(this.#instruments, {
      provider: this.#model.provider,
      requestModel: this.#model.modelId,
      seconds: (performance.now() - this.#started) / 1000,
      ...outcome,
    });
  }
}
