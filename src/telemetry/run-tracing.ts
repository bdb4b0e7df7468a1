import {
  context as otelContext,
  type Context,
  metrics,
  type Link,
  type Meter,
  createNoopMeter,
  ProxyTracer,
  type Span,
  type SpanContext,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { TerminalReason, Usage } from "../protocol/index.js";
import { ATTR, EVENT, providerName } from "./attributes.js";
import { genAiInstruments, type GenAiInstruments } from "./metrics.js";
import { errorType, failSpan, setUsage } from "./span-helpers.js";
import { captureContent, secretValues } from "./content.js";
import { ChatSpan, type ChatModel, type ChatRequest } from "./chat-span.js";
import { hookAttributes, ToolSpan, type TracedCall, type TracedHook } from "./tool-span.js";
import { CompactionSpan } from "./compaction-span.js";
import { spanContextOf, traceparentOf } from "./trace-context.js";
import { GYRE_VERSION } from "../version.js";

/** How many ended calls' spans a run keeps to link to (a handoff follows its transfer call's batch). */
const ENDED_CALLS_KEPT = 32;

/** The instrumentation scope Gyre's spans carry. */
export const TRACER_NAME = "gyre";

/** How a run is traced: the caller's tracer (default: the global provider's), and whether content goes into spans. */
export interface TracingOptions {
  tracer?: Tracer | undefined;
  /** Where the GenAI metrics go; default: the global meter provider's. */
  meter?: Meter | undefined;
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
  /** Spans the run links to (where a background agent started). */
  links?: Link[] | undefined;
  /** A parent run's instruments (a subagent's measurements go where its parent's do). */
  instruments?: GenAiInstruments | undefined;
  /** The run's environment (the `env` option), whose secrets content attributes leave out with `process.env`'s. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** A parent run's secrets. */
  secrets?: readonly string[] | undefined;
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
  readonly instruments: GenAiInstruments;
  readonly captureContent: boolean;
  readonly secrets: readonly string[];
  readonly #root: Span;
  readonly #rootContext: Context;
  /** The span the run's model requests and tool calls hang under: the root, or the agent a handoff gave the run to. */
  #current: { span: Span; context: Context };
  readonly #recording: boolean;
  /**
   * The open tool calls' spans, by call id, shared by a run and its subagents: a subagent's run
   * is a child of its call's span, and a hook outcome (the hook runner is shared) finds its call.
   */
  readonly #tools: Map<string, ToolSpan>;
  /** The spans of calls that ended lately, by call id: a handoff links to its transfer call, which has ended. */
  readonly #endedTools = new Map<string, SpanContext>();
  /**
   * No tracer or meter of the caller's and no provider of either registered: every span would be
   * the API's no-op span and every measurement a no-op, so no chat or tool span is started at all
   * (nothing per turn).
   */
  #off = false;
  #ended = false;

  /** @internal The tool call ended: a subagent started after it would not be its child. */
  private toolEnded = (id: string): void => {
    const call = this.#tools.get(id);
    this.#tools.delete(id);
    const ended = call && trace.getSpanContext(call.context);
    if (!ended) return;
    this.#endedTools.set(id, ended);
    if (this.#endedTools.size > ENDED_CALLS_KEPT)
      this.#endedTools.delete(this.#endedTools.keys().next().value as string);
  };

  private constructor(
    tracer: Tracer,
    instruments: GenAiInstruments,
    capture: boolean,
    secrets: readonly string[],
    span: Span,
    parent: Context,
    tools: Map<string, ToolSpan>,
  ) {
    this.tracer = tracer;
    this.instruments = instruments;
    this.secrets = secrets;
    this.captureContent = capture;
    this.#root = span;
    this.#recording = span.isRecording();
    this.#rootContext = trace.setSpan(parent, span);
    this.#current = { span, context: this.#rootContext };
    this.#tools = tools;
  }

  /** The context whose active span is the one the run's requests and calls are children of. */
  get context(): Context {
    return this.#current.context;
  }

  /** Starts an agent's `invoke_agent {agent}` span. */
  static startAgent(start: AgentStart, tools = new Map<string, ToolSpan>()): RunTracing {
    const tracer = start.tracer ?? trace.getTracer(TRACER_NAME, GYRE_VERSION);
    const parent = start.parent ?? otelContext.active();
    const span = agentSpan(tracer, start.agentName, parent, start.links);
    if (span.isRecording()) {
      if (start.conversationId !== undefined) span.setAttribute(ATTR.conversationId, start.conversationId);
      if (start.agentId !== undefined) span.setAttribute(ATTR.agentId, start.agentId);
    }
    const instruments = start.instruments ?? genAiInstruments(start.meter);
    const capture = captureContent(start.captureContent);
    // Secrets matter only where content is captured: found once per run, then.
    const secrets = capture ? (start.secrets ?? secretValues(process.env, start.env)) : [];
    const tracing = new RunTracing(tracer, instruments, capture, secrets, span, parent, tools);
    // The API hands out a ProxyTracer only while no tracer provider is registered, and its one
    // no-op meter while no meter provider is.
    tracing.#off =
      start.tracer === undefined &&
      tracer instanceof ProxyTracer &&
      !tracing.#recording &&
      start.instruments === undefined &&
      start.meter === undefined &&
      metrics.getMeter(TRACER_NAME) === createNoopMeter();
    return tracing;
  }

  /**
   * A subagent's run, started from the call `toolUseId` of this run: a child of that call's
   * span. A background agent outlives its call: it is a child of this run's span instead, linked
   * to the call that started it.
   */
  startSubagent(
    start: Omit<
      AgentStart,
      "tracer" | "meter" | "instruments" | "captureContent" | "secrets" | "env" | "parent" | "links"
    >,
    toolUseId: string,
    options: { background?: boolean } = {},
  ): RunTracing {
    const call = this.#tools.get(toolUseId);
    // A background agent may start after its call returned.
    const link = call ? trace.getSpanContext(call.context) : this.#endedTools.get(toolUseId);
    const subagent = RunTracing.startAgent(
      {
        ...start,
        tracer: this.tracer,
        instruments: this.instruments,
        captureContent: this.captureContent,
        secrets: this.secrets,
        parent: options.background ? this.context : (call?.context ?? this.context),
        ...(options.background &&
          link && { links: [{ context: link, attributes: { [ATTR.linkKind]: "started_by" } }] }),
      },
      this.#tools,
    );
    subagent.#off = this.#off && !subagent.#recording;
    return subagent;
  }

  /** The session id, once known (a resumed or forked session's is final only after set-up). */
  setConversation(id: string): void {
    if (this.#recording) this.#root.setAttribute(ATTR.conversationId, id);
  }

  /** The model the run requests (set once it is resolved). */
  setRequestModel(model: string): void {
    if (this.#recording) this.#root.setAttribute(ATTR.requestModel, model);
  }

  /** A `chat {model}` span for one model request (each retry its own). */
  startChat(model: ChatModel, request: ChatRequest, attempt: number): ChatSpan | undefined {
    return this.#off ? undefined : new ChatSpan(this, model, request, attempt);
  }

  /** An `execute_tool {tool}` span for one tool call. */
  startTool(call: TracedCall): ToolSpan | undefined {
    if (this.#off) return undefined;
    const span = new ToolSpan(this, call, this.toolEnded);
    if (span.recording) this.#tools.set(call.id, span);
    return span;
  }

  /** Hooks ran: an event on their call's span (tool events), else on the run's. */
  hookRan(hook: TracedHook): void {
    if (!this.#recording) return;
    const call = hook.toolUseId !== undefined ? this.#tools.get(hook.toolUseId) : undefined;
    if (call) call.hook(hook);
    else this.#current.span.addEvent(EVENT.hook, hookAttributes(hook));
  }

  /** A `compact_history` span for one compaction of the history. */
  startCompaction(trigger: string): CompactionSpan | undefined {
    return this.#off ? undefined : new CompactionSpan(this, trigger);
  }

  /**
   * The run paused on calls the caller must answer: a `gyre.pause` event on its span. Returns
   * the span's W3C trace context, for the run that answers them to link to (recording only).
   */
  paused(callIds: readonly string[]): string | undefined {
    if (!this.#recording) return undefined;
    this.#current.span.addEvent(EVENT.pause, { [ATTR.pendingToolCalls]: [...callIds] });
    return traceparentOf(this.#current.context)?.traceparent;
  }

  /** This run answers calls a run paused on: a link to the span where it paused. */
  resumedFrom(traceparent: string | undefined): void {
    const paused = spanContextOf(traceparent);
    if (this.#recording && paused) this.#root.addLink({ context: paused, attributes: { [ATTR.linkKind]: "resumes" } });
  }

  /**
   * The run was handed to another agent (a handoff): what follows is an `invoke_agent {to}` span,
   * a child of the run's, linked to the transfer call; the previous handoff's span ends.
   */
  handedOff(from: string, to: string, callId: string): void {
    if (!this.#recording) return;
    this.#endHandoff();
    const open = this.#tools.get(callId);
    const link = this.#endedTools.get(callId) ?? (open && trace.getSpanContext(open.context));
    const span = agentSpan(
      this.tracer,
      to,
      this.#rootContext,
      link ? [{ context: link, attributes: { [ATTR.linkKind]: "handoff" } }] : undefined,
    );
    span.setAttribute(ATTR.handoffFrom, from);
    span.setAttribute(ATTR.handoffTo, to);
    this.#current = { span, context: trace.setSpan(this.#rootContext, span) };
  }

  #endHandoff(): void {
    if (this.#current.span !== this.#root) this.#current.span.end();
    this.#current = { span: this.#root, context: this.#rootContext };
  }

  /** Adds what the run cost, by model (`provider/model` ids), to the `gyre.client.cost` counter: once per top-level run. */
  recordCost(byModel: Readonly<Record<string, { costUSD: number }>>): void {
    for (const [id, usage] of Object.entries(byModel)) {
      if (!(usage.costUSD > 0)) continue;
      const slash = id.indexOf("/");
      this.instruments.cost.add(usage.costUSD, {
        [ATTR.providerName]: providerName(slash > 0 ? id.slice(0, slash) : "unknown"),
        [ATTR.requestModel]: slash > 0 ? id.slice(slash + 1) : id,
      });
    }
  }

  /** Ends the `invoke_agent` span with the run's totals and why it ended; once. */
  end(summary: AgentSummary): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endHandoff();
    const span = this.#root;
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

/** An `invoke_agent {agent}` span. */
function agentSpan(tracer: Tracer, agentName: string, parent: Context, links: Link[] | undefined): Span {
  const span = tracer.startSpan(
    `invoke_agent ${agentName}`,
    { kind: SpanKind.INTERNAL, ...(links && { links }) },
    parent,
  );
  if (span.isRecording()) {
    span.setAttribute(ATTR.operationName, "invoke_agent");
    span.setAttribute(ATTR.agentName, agentName);
  }
  return span;
}
