import { GyreError, type GyreErrorCode, type GyreErrorOptions } from "../errors/index.js";
import type { APIAssistantMessage } from "../protocol/index.js";

/** A {@link GyreError}'s options, and what streamed before the failure. */
export interface ModelCallErrorOptions extends GyreErrorOptions {
  /** The answer as far as it streamed, without tool calls whose arguments never completed. */
  partial?: APIAssistantMessage;
}

/**
 * A failed model call, classified (see `classifyModelError`). `partial` is what streamed
 * before the failure, without tool calls whose arguments never completed; undefined when
 * nothing had.
 */
export class ModelCallError extends GyreError {
  readonly partial: APIAssistantMessage | undefined;

  constructor(code: GyreErrorCode, message: string, options: ModelCallErrorOptions = {}) {
    super(code, message, options);
    this.name = "ModelCallError";
    this.partial = options.partial;
  }
}
