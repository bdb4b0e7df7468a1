import {
  context as otelContext,
  type Context,
  ProxyTracer,
  type Span,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { TerminalReason, Usage } from "../protocol/index.js";
import { ATTR } from "./attributes.js";
import { errorType, failSpan, setUsage } from "./span-helpers.js";
import { captureContent } from "./content.js";
import { ChatSpan, type ChatModel, type ChatRequest } from "./chat-span.js";
import { ToolSpan, type TracedCall } from "./tool-span.js";
import { GYRE_VERSION } from "../version.js";

/** The instrumentation scope Gyre's spans carry. */
export const TRACER_NAME = "gyre";

/** How a run is traced: the caller's tracer (default: the global provider's), and whether content goes into spans. */
export interface TracingOptions {
  tracer?: Tracer | undefined;
  /** Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. */
  captureContent?: boolean | undefined;
}

/** What an `invoke_agent` span is started with. */
export interface AgentStart extends TracingOptions {
  agentName: string;
  /** The session id (`gen_ai.conversation.id`). */
  conversationId?: string | undefined;
  /** A subagent's own id. */
  agentId?: string | undefined;
  /** The span the run is a child of; default: the active one (none: the run is a trace's root). */
  parent?: Context | undefined;
}

/** What an agent's run ended with, for its `invoke_agent` span. */
export interface AgentSummary {
  model?: string | undefined;
  usage?: Usage | undefined;
  costUsd?: number | undefined;
  numTurns?: number | undefined;
  terminalReason?: TerminalReason | undefined;
  /** Why it failed, when it threw. */
  error?: unknown;
}

/**
 * One agent run's tracing: its `invoke_agent` span, and the spans of its model requests and
 * tool calls under it, with explicit parents (the loop is a generator: the active context at
 * a resumption is its caller's, not the run's). Without a registered tracer provider every span
 * is the API's no-op span and nothing else is done.
 */
export class RunTracing {
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  /** The context whose active span is the run's `invoke_agent` span. */
  readonly context: Context;
  readonly #span: Span;
  readonly #recording: boolean;
  /** The running tool calls' contexts, by call id: a subagent's run is a child of its call's span. */
  readonly #tools = new Map<string, Context>();
  /**
   * No tracer of the caller's and no tracer provider registered: every span would be the API's
   * no-op span, so no chat or tool span is started at all (nothing per turn).
   */
  #off = false;
  #ended = false;

  /** @internal The tool call ended: a subagent started after it would not be its child. */
  private toolEnded = (id: string): void => {
    this.#tools.delete(id);
  };

  private constructor(tracer: Tracer, capture: boolean, span: Span, parent: Context) {
    this.tracer = tracer;
    this.captureContent = capture;
    this.#span = span;
    this.#recording = span.isRecording();
    this.context = trace.setSpan(parent, span);
  }

  /** Starts an agent's `invoke_agent {agent}` span. */
  static startAgent(start: AgentStart): RunTracing {
    const tracer = start.tracer ?? trace.getTracer(TRACER_NAME, GYRE_VERSION);
    const parent = start.parent ?? otelContext.active();
    const span = tracer.startSpan(`invoke_agent ${start.agentName}`, { kind: SpanKind.INTERNAL }, parent);
    if (span.isRecording()) {
      span.setAttribute(ATTR.operationName, "invoke_agent");
      span.setAttribute(ATTR.agentName, start.agentName);
      if (start.conversationId !== undefined) span.setAttribute(ATTR.conversationId, start.conversationId);
      if (start.agentId !== undefined) span.setAttribute(ATTR.agentId, start.agentId);
    }
    const tracing = new RunTracing(tracer, captureContent(start.captureContent), span, parent);
    // The API hands out a ProxyTracer only while no provider is registered.
    tracing.#off = start.tracer === undefined && tracer instanceof ProxyTracer && !tracing.#recording;
    return tracing;
  }

  /** A subagent's run, started from the call `toolUseId` of this run: a child of that call's span. */
  startSubagent(start: Omit<AgentStart, "tracer" | "captureContent" | "parent">, toolUseId: string): RunTracing {
    const subagent = RunTracing.startAgent({
      ...start,
      tracer: this.tracer,
      captureContent: this.captureContent,
      parent: this.#tools.get(toolUseId) ?? this.context,
    });
    subagent.#off = this.#off && !subagent.#recording;
    return subagent;
  }

  /** The session id, once known (a resumed or forked session's is final only after set-up). */
  setConversation(id: string): void {
    if (this.#recording) this.#span.setAttribute(ATTR.conversationId, id);
  }

  /** The model the run requests (set once it is resolved). */
  setRequestModel(model: string): void {
    if (this.#recording) this.#span.setAttribute(ATTR.requestModel, model);
  }

  /** A `chat {model}` span for one model request (each retry its own). */
  startChat(model: ChatModel, request: ChatRequest, attempt: number): ChatSpan | undefined {
    return this.#off ? undefined : new ChatSpan(this, model, request, attempt);
  }

  /** An `execute_tool {tool}` span for one tool call. */
  startTool(call: TracedCall): ToolSpan | undefined {
    if (this.#off) return undefined;
    const span = new ToolSpan(this, call, this.toolEnded);
    if (span.recording) this.#tools.set(call.id, span.context);
    return span;
  }

  /** Ends the `invoke_agent` span with the run's totals and why it ended; once. */
  end(summary: AgentSummary): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    if (this.#recording) {
      if (summary.model !== undefined) span.setAttribute(ATTR.requestModel, summary.model);
      if (summary.usage) setUsage(span, summary.usage);
      if (summary.costUsd !== undefined) span.setAttribute(ATTR.costUsd, summary.costUsd);
      if (summary.numTurns !== undefined) span.setAttribute(ATTR.numTurns, summary.numTurns);
      if (summary.terminalReason !== undefined) span.setAttribute(ATTR.terminalReason, summary.terminalReason);
      if (summary.error !== undefined) failSpan(span, summary.error, errorType(summary.error));
    }
    span.end();
  }
}
