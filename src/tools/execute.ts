import type { z } from "zod";
import { ABORTED, untilAborted } from "../async/index.js";
import { errorMessage, GyreError } from "../errors/index.js";
import type { ToolRegistry } from "./registry.js";
import type { AnyTool, ToolContext, ToolOutput, ToolResult } from "./tool.js";
import { DEFAULT_MAX_OUTPUT_CHARS, spillPathFor, truncateOutput } from "./truncate.js";

/** A call as the model made it. `input` is already parsed; `rawInput` is set when it was not JSON. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  /** The raw argument text (or its start), present when it could not be parsed as JSON. */
  rawInput?: string;
  /** Set when the argument text was over the size limit, so it was never parsed. */
  inputTooLarge?: { bytes: number; limit: number };
}

export type PreparedCall =
  | { ok: true; call: ToolCall; tool: AnyTool; input: unknown }
  | {
      ok: false;
      call: ToolCall;
      tool: AnyTool | undefined;
      result: ToolResult;
      code: "tool_not_found" | "tool_not_loaded" | "tool_input_invalid" | "tool_input_too_large";
    };

/**
 * Resolve the tool and validate the input; failures become results the model can act on.
 * `notLoaded` refuses a tool the model may not call yet (a deferred tool it has not loaded).
 */
export function prepareCall(
  registry: ToolRegistry,
  call: ToolCall,
  notLoaded?: (toolName: string) => string | undefined,
): PreparedCall {
  const tool = registry.get(call.name);
  const refusal = tool && notLoaded?.(tool.name);
  if (refusal) return { ok: false, call, tool, code: "tool_not_loaded", result: errorResult(refusal) };
  if (!tool) {
    const available = registry.names().join(", ") || "(none)";
    return {
      ok: false,
      call,
      tool,
      code: "tool_not_found",
      result: errorResult(`Error: No such tool available: ${call.name}. Available tools: ${available}`),
    };
  }
  if (call.inputTooLarge !== undefined) {
    const { bytes, limit } = call.inputTooLarge;
    return {
      ok: false,
      call,
      tool,
      code: "tool_input_too_large",
      result: errorResult(
        `Error: The arguments for ${call.name} were ${bytes} bytes, over the limit of ${limit} bytes for one ` +
          "tool call, so the tool did not run. Do the work in smaller calls (for example, write a large file " +
          "in several parts).",
      ),
    };
  }
  if (call.rawInput !== undefined) {
    return {
      ok: false,
      call,
      tool,
      code: "tool_input_invalid",
      result: errorResult(
        `Error: The arguments for ${call.name} were not valid JSON, so the tool did not run. ` +
          `Send the call again with a JSON object as arguments. Received: ${call.rawInput.slice(0, 2000)}`,
      ),
    };
  }
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) {
    return {
      ok: false,
      call,
      tool,
      code: "tool_input_invalid",
      result: errorResult(
        `InputValidationError: ${call.name} failed due to the following issues:\n${formatIssues(parsed.error)}`,
      ),
    };
  }
  return { ok: true, call, tool, input: parsed.data };
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(input)";
      return `- ${path}: ${issue.message}`;
    })
    .join("\n");
}

export function errorResult(text: string): ToolResult {
  return { content: text, isError: true };
}

export interface ExecuteOptions {
  /** Overrides the tool's own timeout. */
  timeoutMs?: number;
}

/**
 * Run a validated call: applies the timeout, honours the abort signal even when the tool
 * ignores it, turns a throw into an `is_error` result, and truncates big output. This is
 * the one place output is truncated.
 */
export async function executeTool(
  tool: AnyTool,
  input: unknown,
  context: ToolContext,
  options: ExecuteOptions = {},
): Promise<ToolResult> {
  // The loop never runs a client-executed tool; a caller that tries gets an error result, not a crash.
  if (!tool.execute) return errorResult(`Error: ${tool.name} is executed by the caller, not by Gyre.`);
  const timeoutMs = options.timeoutMs ?? tool.timeoutMs;
  // A timer and a combined signal only when there is a timeout: most calls need neither.
  const timeout = timeoutMs !== undefined && timeoutMs > 0 ? new CallTimeout(tool.name, timeoutMs) : undefined;
  const signal = timeout ? AbortSignal.any([context.signal, timeout.signal]) : context.signal;
  try {
    const running = tool.execute(input, { ...context, signal });
    const output = await (tool.endsOnAbort ? running : raceAbort(running, signal));
    return finish(tool, normalize(output), context);
  } catch (error) {
    if (timeout?.fired) return errorResult(`Error: ${tool.name} timed out after ${timeoutMs} ms and was stopped.`);
    if (context.signal.aborted) return errorResult(`Error: ${tool.name} was interrupted before it finished.`);
    return errorResult(`Error: ${errorMessage(error)}`);
  } finally {
    timeout?.clear();
  }
}

/** Aborts its signal when the call has run too long. */
class CallTimeout {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  fired = false;

  constructor(toolName: string, ms: number) {
    this.#timer = setTimeout(() => {
      this.fired = true;
      this.#controller.abort(new GyreError("tool_timeout", `${toolName} timed out after ${ms} ms`));
    }, ms);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/** `promise`'s outcome, or a rejection with the signal's reason as soon as it aborts. */
async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const value = await untilAborted(promise, signal);
  if (value === ABORTED) throw signal.reason;
  return value;
}

function normalize(output: ToolOutput): ToolResult {
  if (typeof output === "string") return { content: output };
  if (output === undefined || output === null) return { content: "" };
  return output;
}

function finish(tool: AnyTool, result: ToolResult, context: ToolContext): ToolResult {
  const limit = tool.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const cut = (text: string) =>
    text.length <= limit
      ? text
      : truncateOutput(text, limit, { spillPath: spillPathFor(context.sessionId, context.toolUseId) });
  if (typeof result.content === "string") {
    return result.content.length <= limit ? result : { ...result, content: cut(result.content) };
  }
  const content = result.content.map((block) => (block.type === "text" ? { ...block, text: cut(block.text) } : block));
  return { ...result, content };
}
