import type { GyreError } from "../../errors/index.js";
import {
  classifyModelError,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ServerCompactionUsage,
  type ToolInputProblem,
} from "../../model/index.js";
import type { APIAssistantMessage, SDKMessage } from "../../protocol/index.js";
import type { RunTracing } from "../../telemetry/index.js";
import type { MessageStamp } from "../messages.js";
import { type RetryPolicy, retryDelayMs, sleep } from "../retry.js";

export interface ModelStepInput {
  /** The turn the call answers (1-based): its `message_start` stream events carry it. */
  turn?: number;
  model: Model;
  request: Omit<ModelRequest, "signal">;
  signal: AbortSignal;
  retry: RetryPolicy;
  includePartialMessages: boolean;
  stamp: MessageStamp;
  /** Message ids for answers the provider gives none (default: the model's own `msg_gyre_…`). */
  newId?: () => string;
  /** The clock the call's duration is measured with (default `performance.now`). */
  now?: () => number;
  /** Where each attempt's `chat` span goes; none: untraced. */
  tracing?: RunTracing | undefined;
  /** Called when the model's answer starts to arrive (its first event), at each attempt. */
  onAnswerStarted?: () => void;
}

export type ModelStepOutcome =
  | {
      kind: "message";
      message: APIAssistantMessage;
      /** Calls whose arguments were not used (`input` is `{}`), by id. */
      toolInputProblems: ReadonlyMap<string, ToolInputProblem>;
      /** The provider compacted the context before answering, and reported the compaction's tokens. */
      serverCompaction?: ServerCompactionUsage;
      apiMs: number;
    }
  | { kind: "aborted"; partial: APIAssistantMessage | undefined; apiMs: number }
  | { kind: "failed"; error: GyreError; partial: APIAssistantMessage | undefined; apiMs: number };

/**
 * One model call with retries. Yields `stream_event` and `api_retry` messages as it goes
 * and returns the assembled assistant message, or why there is none.
 */
export async function* modelStep(input: ModelStepInput): AsyncGenerator<SDKMessage, ModelStepOutcome> {
  let apiMs = 0;
  const now = input.now ?? (() => performance.now());
  for (let attempt = 0; ; attempt++) {
    const started = now();
    const chat = input.tracing?.startChat(input.model, input.request, attempt);
    try {
      const response = yield* forward(
        input.model.stream({
          ...input.request,
          ...(input.newId && { messageId: input.newId() }),
          signal: input.signal,
        }),
        input,
      );
      apiMs += now() - started;
      chat?.answered(response.message);
      return {
        kind: "message",
        message: response.message,
        toolInputProblems: response.toolInputProblems,
        ...(response.serverCompaction && { serverCompaction: response.serverCompaction }),
        apiMs,
      };
    } catch (thrown) {
      apiMs += now() - started;
      // Models other than the AI SDK adapter may throw unclassified errors.
      const error = classifyModelError(thrown, { aborted: input.signal.aborted });
      chat?.failed(error);
      if (input.signal.aborted) return { kind: "aborted", partial: error.partial, apiMs };
      if (!error.retryable || attempt >= input.retry.maxRetries)
        return { kind: "failed", error, partial: error.partial, apiMs };
      const delay = retryDelayMs(attempt + 1, error, input.retry);
      yield input.stamp.stamp({
        type: "system",
        subtype: "api_retry",
        attempt: attempt + 1,
        max_retries: input.retry.maxRetries,
        retry_delay_ms: delay,
        error_status: error.statusCode ?? null,
        error: error.message,
        retry_at: Date.now() + delay,
      });
      try {
        await sleep(delay, input.signal);
      } catch {
        return { kind: "aborted", partial: undefined, apiMs };
      }
    } finally {
      // The consumer stopped pulling mid-request: the span still ends (a no-op once it has).
      chat?.failed(new Error("The model request was abandoned"));
    }
  }
}

/** The model's events as `stream_event` messages (when asked for); returns its response. */
async function* forward(
  stream: AsyncIterator<ModelStreamEvent, ModelResponse>,
  input: ModelStepInput,
): AsyncGenerator<SDKMessage, ModelResponse> {
  try {
    for (let first = true; ; first = false) {
      const next = await stream.next();
      if (next.done) return next.value;
      if (first) input.onAnswerStarted?.();
      if (!input.includePartialMessages) continue;
      const message = input.stamp.streamEvent(next.value);
      yield input.turn !== undefined && next.value.type === "message_start"
        ? { ...message, turn: input.turn }
        : message;
    }
  } finally {
    // Our consumer stopped early: let the model close its connection.
    await stream.return?.();
  }
}
