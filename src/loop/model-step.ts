import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { GyreError } from "../errors/index.js";
import type { ResolvedModel } from "../model/index.js";
import type { APIAssistantMessage, SDKMessage } from "../protocol/index.js";
import { MessageAssembler, type ToolInputProblem } from "./assemble-message.js";
import type { MessageStamp } from "./messages.js";
import { classifyModelError, type RetryPolicy, retryDelayMs, sleep } from "./retry.js";

export interface ModelStepInput {
  model: ResolvedModel;
  callOptions: Omit<LanguageModelV3CallOptions, "abortSignal">;
  signal: AbortSignal;
  retry: RetryPolicy;
  includePartialMessages: boolean;
  stamp: MessageStamp;
  /** UTF-8 bytes one tool call's arguments may have (`maxToolInputBytes`). */
  maxToolInputBytes: number;
}

export type ModelStepOutcome =
  | {
      kind: "message";
      message: APIAssistantMessage;
      /** Calls whose arguments were not used (`input` is `{}`), by id. */
      toolInputProblems: Map<string, ToolInputProblem>;
      apiMs: number;
    }
  | { kind: "aborted"; partial: APIAssistantMessage | undefined; apiMs: number }
  | { kind: "failed"; error: GyreError; partial: APIAssistantMessage | undefined; apiMs: number };

let messageCounter = 0;

/**
 * One model call with retries. Yields `stream_event` and `api_retry` messages as it goes
 * and returns the assembled assistant message, or why there is none.
 */
export async function* modelStep(input: ModelStepInput): AsyncGenerator<SDKMessage, ModelStepOutcome> {
  let apiMs = 0;
  for (let attempt = 0; ; attempt++) {
    const assembler = new MessageAssembler(
      `msg_gyre_${Date.now().toString(36)}_${++messageCounter}`,
      input.model.modelId,
      input.maxToolInputBytes,
    );
    const started = performance.now();
    try {
      const { stream } = await input.model.model.doStream({
        ...input.callOptions,
        abortSignal: input.signal,
      });
      for await (const part of stream as AsyncIterable<LanguageModelV3StreamPart>) {
        if (part.type === "error") throw part.error;
        const events = assembler.push(part);
        if (input.includePartialMessages) for (const event of events) yield input.stamp.streamEvent(event);
      }
      apiMs += performance.now() - started;
      if (!assembler.finished) {
        throw new GyreError("model_stream_error", "The model's stream ended before the response was complete.", {
          retryable: true,
        });
      }
      return {
        kind: "message",
        message: assembler.message(),
        toolInputProblems: assembler.toolInputProblems,
        apiMs,
      };
    } catch (thrown) {
      apiMs += performance.now() - started;
      assembler.dropIncompleteToolCalls();
      const partial = hasContent(assembler.message()) ? assembler.message() : undefined;
      if (input.signal.aborted) return { kind: "aborted", partial, apiMs };
      const error = classifyModelError(thrown);
      if (!error.retryable || attempt >= input.retry.maxRetries) return { kind: "failed", error, partial, apiMs };
      const delay = retryDelayMs(attempt + 1, error, input.retry);
      yield input.stamp.stamp({
        type: "system",
        subtype: "api_retry",
        attempt: attempt + 1,
        max_retries: input.retry.maxRetries,
        retry_delay_ms: delay,
        error_status: error.statusCode ?? null,
        error: error.message,
      });
      try {
        await sleep(delay, input.signal);
      } catch {
        return { kind: "aborted", partial: undefined, apiMs };
      }
    }
  }
}

function hasContent(message: APIAssistantMessage): boolean {
  return message.content.some((block) => block.type !== "text" || block.text.length > 0);
}
