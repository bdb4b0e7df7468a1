import { context as otelContext, type Context, type Span, SpanKind, trace } from "@opentelemetry/api";
import { ATTR, EVENT } from "./attributes.js";
import { contentAttribute } from "./content.js";
import { failSpan, type TraceScope } from "./span-helpers.js";

/** A tool call as its span records it. */
export interface TracedCall {
  /** The model's call id. */
  id: string;
  name: string;
  input: unknown;
}

/** The permission gate's answer, as the span's `gyre.permission` event says it. */
export interface TracedDecision {
  behavior: "allow" | "deny" | "defer";
  /** Why (a denial's message, what a deferred call waits for). */
  reason?: string | undefined;
}

/** Hooks that ran for an event, as the `gyre.hook` event says it (no hook output: it may hold content). */
export interface TracedHook {
  /** The hook event (`PreToolUse`, `PostToolUse`, `Stop`, …). */
  event: string;
  /** The call it was about, when it was about one. */
  toolUseId?: string | undefined;
  /** How many hooks ran. */
  count: number;
  /** What they decided: `allow`, `deny`, `ask`, `block`, `stop`; absent when nothing. */
  decision?: string | undefined;
  /** How many failed. */
  errors: number;
}

/** The `gyre.hook` event's attributes. */
export function hookAttributes(hook: TracedHook): Record<string, string | number> {
  return {
    [ATTR.hookEvent]: hook.event,
    [ATTR.hookCount]: hook.count,
    [ATTR.hookErrors]: hook.errors,
    ...(hook.decision !== undefined && { [ATTR.hookDecision]: hook.decision }),
  };
}

/** What a call ended with. */
export interface TracedResult {
  isError?: boolean | undefined;
  content: unknown;
}

/**
 * One tool call's `execute_tool {tool}` span, from validation to its result: the permission
 * decision is an event, an error result its status. While the tool runs its span is the active
 * one (where a context manager is registered), so what the tool traces itself is its child.
 */
export class ToolSpan {
  readonly #tracing: TraceScope;
  readonly #onEnd: (id: string) => void;
  readonly #span: Span;
  readonly #id: string;
  readonly recording: boolean;
  /** The context whose active span is this call's. */
  readonly context: Context;
  #ended = false;

  constructor(tracing: TraceScope, call: TracedCall, onEnd: (id: string) => void) {
    this.#tracing = tracing;
    this.#onEnd = onEnd;
    this.#id = call.id;
    const span = tracing.tracer.startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL }, tracing.context);
    this.#span = span;
    this.recording = span.isRecording();
    this.context = this.recording ? trace.setSpan(tracing.context, span) : tracing.context;
    if (!this.recording) return;
    span.setAttribute(ATTR.operationName, "execute_tool");
    span.setAttribute(ATTR.toolName, call.name);
    span.setAttribute(ATTR.toolCallId, call.id);
    // MCP tools (mcp__server__tool) are extensions of the agent; the rest run as functions.
    span.setAttribute(ATTR.toolType, call.name.startsWith("mcp__") ? "extension" : "function");
    if (tracing.captureContent)
      span.setAttribute(ATTR.toolCallArguments, contentAttribute(call.input, { secrets: tracing.secrets }));
  }

  /** The permission gate's decision on the call. */
  decided(decision: TracedDecision): void {
    if (!this.recording || this.#ended) return;
    this.#span.addEvent(EVENT.permission, {
      [ATTR.permissionBehavior]: decision.behavior,
      ...(decision.reason !== undefined && { [ATTR.permissionReason]: decision.reason }),
    });
  }

  /** Hooks ran for this call (PreToolUse, PermissionRequest, PostToolUse, …). */
  hook(hook: TracedHook): void {
    if (this.recording && !this.#ended) this.#span.addEvent(EVENT.hook, hookAttributes(hook));
  }

  /** The sandbox blocked what the call's command tried (each violation as Gyre reports it, as JSON). */
  sandboxViolation(violations: readonly unknown[]): void {
    if (!this.recording || this.#ended) return;
    this.#span.addEvent(EVENT.sandboxViolation, {
      [ATTR.sandboxViolations]: violations.map((violation) =>
        contentAttribute(violation, { maxChars: 2048, secrets: this.#tracing.secrets }),
      ),
    });
  }

  /** Runs `fn` (the tool) with this call's span active. */
  within<T>(fn: () => Promise<T>): Promise<T> {
    return this.recording ? otelContext.with(this.context, fn) : fn();
  }

  /** The call waits for the caller (a deferred approval, a client-executed tool): its span ends without a result. */
  pending(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd(this.#id);
    this.#span.end();
  }

  /** The call ended with `result` (an error result: status ERROR, `error.type` `why`). */
  end(result: TracedResult, why = "tool_error"): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd(this.#id);
    const span = this.#span;
    if (this.recording) {
      if (this.#tracing.captureContent)
        span.setAttribute(ATTR.toolCallResult, contentAttribute(result.content, { secrets: this.#tracing.secrets }));
      if (result.isError) failSpan(span, new Error(errorText(result.content)), why);
    }
    span.end();
  }
}

function errorText(content: unknown): string {
  if (typeof content === "string") return content.slice(0, 500);
  if (Array.isArray(content)) {
    const text = content
      .map((block: unknown) => (block && typeof block === "object" && "text" in block ? String(block.text) : ""))
      .join("\n");
    return text.slice(0, 500);
  }
  return "the tool call failed";
}
