import { type Span, SpanKind } from "@opentelemetry/api";
import type { Usage } from "../protocol/index.js";
import { ATTR } from "./attributes.js";
import { errorType, failSpan, setUsage, type TraceScope } from "./span-helpers.js";

/** What a compaction did, for its span. */
export interface CompactionDone {
  preTokens: number;
  postTokens?: number | undefined;
  /** The summarizing request's usage, when the compactor asked a model. */
  usage?: Usage | undefined;
}

/**
 * One compaction of a run's history: `compact_history`, a child of the run's span, with what
 * started it (`auto`, `manual`), the tokens before and after, and the summary's usage.
 */
export class CompactionSpan {
  readonly #span: Span;
  readonly #recording: boolean;
  #ended = false;

  constructor(tracing: TraceScope, trigger: string) {
    this.#span = tracing.tracer.startSpan("compact_history", { kind: SpanKind.INTERNAL }, tracing.context);
    this.#recording = this.#span.isRecording();
    if (this.#recording) this.#span.setAttribute(ATTR.compactionTrigger, trigger);
  }

  end(done: CompactionDone): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#recording) {
      this.#span.setAttribute(ATTR.compactionPreTokens, done.preTokens);
      if (done.postTokens !== undefined) this.#span.setAttribute(ATTR.compactionPostTokens, done.postTokens);
      if (done.usage) setUsage(this.#span, done.usage);
    }
    this.#span.end();
  }

  failed(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#recording) failSpan(this.#span, error, errorType(error));
    this.#span.end();
  }
}
