import { useEffect, useMemo, useState } from "preact/hooks";
import { fetchSession, onSessionChange } from "./api.js";
import { Columns, CostBars } from "./charts.js";
import { baseName, count, duration, money, tokens, when } from "./format.js";
import { Markdown } from "./markdown.js";
import { StepDiff } from "./patch-view.js";
import { buildTimeline, costWithSubagents, type Item, type Timeline, toolParts } from "./timeline.js";
import { Clipped, ToolCall } from "./tool-call.js";
import type { SdkEvent, SessionView, StoredMessage } from "./types.js";

/** A session's view, fetched again whenever the store says it (or one of its subagents) changed. */
function useSessionView(id: string): { view?: SessionView; error?: string } {
  const [state, setState] = useState<{ view?: SessionView; error?: string }>({});
  useEffect(() => {
    let stale = false;
    let pending = false;
    let again = false;
    const load = () => {
      if (pending) {
        again = true;
        return;
      }
      pending = true;
      fetchSession(id)
        .then((view) => !stale && setState({ view }))
        .catch((error: Error) => !stale && setState({ error: error.message }))
        .finally(() => {
          pending = false;
          if (again && !stale) {
            again = false;
            load();
          }
        });
    };
    load();
    const stop = onSessionChange((session) => {
      if (session.id === id || session.parentId === id) load();
    });
    return () => {
      stale = true;
      stop();
    };
  }, [id]);
  return state;
}

function statusText(view: SessionView): string {
  const { status, lastResult } = view.session;
  if (status.type !== "idle") return status.type === "retry" ? "retrying" : "running";
  if (!lastResult) return "idle";
  return lastResult.terminalReason === "requires_action" ? "paused" : lastResult.isError ? "error" : "done";
}

/** The run page: header, charts and timeline of one session. */
export function RunView({ id }: { id: string }) {
  const { view, error } = useSessionView(id);
  if (error) return <div class="error-box">could not load the session: {error}</div>;
  if (!view) return <div class="muted">loading…</div>;
  return <LoadedRun view={view} />;
}

function LoadedRun({ view }: { view: SessionView }) {
  const timeline = useMemo(() => buildTimeline(view), [view]);
  const { session } = view;
  const status = statusText(view);
  return (
    <div class="run" data-testid="run">
      <header class="run-head">
        <a href="#/" class="link">
          ← sessions
        </a>
        <h1>{session.title ?? session.id}</h1>
        <div class="facts">
          <span class={`badge ${status}`} data-testid="run-status">
            {status}
          </span>
          <span title={session.project}>{baseName(session.project)}</span>
          <span>{session.model ?? "no model"}</span>
          <span>{when(session.createdAt)}</span>
          <span title="this session's model calls, and with its subagents'" data-testid="run-cost">
            {money(session.costUsd)}
            {timeline.subtasks.size > 0 && ` (${money(costWithSubagents(view, timeline))} with subagents)`}
          </span>
          <span>{count(tokens(session.tokens))} tokens</span>
          {timeline.permissionMode && <span>mode {timeline.permissionMode}</span>}
          <span class="muted">{session.id}</span>
        </div>
      </header>
      <RunCharts view={view} timeline={timeline} />
      <Timeline_ view={view} timeline={timeline} depth={0} />
    </div>
  );
}

function RunCharts({ view, timeline }: { view: SessionView; timeline: Timeline }) {
  const turns = timeline.items.filter((item): item is Extract<Item, { kind: "turn" }> => item.kind === "turn");
  const byModel = new Map<string, number>();
  for (const message of view.messages)
    if (message.role === "assistant" && message.model)
      byModel.set(message.model, (byModel.get(message.model) ?? 0) + message.costUsd);
  const bySubagent = new Map<string, number>();
  for (const subtask of timeline.subtasks.values())
    bySubagent.set(
      subtask.agent ?? "subagent",
      (bySubagent.get(subtask.agent ?? "subagent") ?? 0) + (subtask.costUsd ?? 0),
    );
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return (
    <section class="charts" data-testid="charts">
      <Columns
        caption="model request time per turn"
        bars={turns.map((t) => ({
          label: String(t.turn),
          value: t.durationMs ?? 0,
          title: `turn ${t.turn}: ${t.durationMs === undefined ? "no time recorded" : duration(t.durationMs)}`,
        }))}
      />
      <Columns
        caption="tokens per turn"
        bars={turns.map((t) => ({
          label: String(t.turn),
          value: tokens(t.message.tokens),
          title: `turn ${t.turn}: ${count(tokens(t.message.tokens))} tokens`,
        }))}
      />
      <CostBars caption="cost by model" items={sorted(byModel)} />
      {bySubagent.size > 0 && <CostBars caption="cost by subagent" items={sorted(bySubagent)} />}
    </section>
  );
}

/** The items of one session; a subagent's opens nested inside its Agent call. */
function Timeline_({ view, timeline, depth }: { view: SessionView; timeline: Timeline; depth: number }) {
  return (
    <ol class="timeline" data-depth={depth}>
      {timeline.items.map((item) => (
        <li key={item.key} class={`item ${item.kind}`}>
          {item.kind === "prompt" && <Prompt text={item.text} />}
          {item.kind === "turn" && <Turn item={item} view={view} timeline={timeline} depth={depth} />}
          {item.kind === "event" && <EventLine event={item.event} />}
        </li>
      ))}
    </ol>
  );
}

function Prompt({ text }: { text: string }) {
  return (
    <div class="prompt" data-nav>
      <span class="who">prompt</span>
      <Clipped text={text} max={1500} />
    </div>
  );
}

function Turn({
  item,
  view,
  timeline,
  depth,
}: {
  item: Extract<Item, { kind: "turn" }>;
  view: SessionView;
  timeline: Timeline;
  depth: number;
}) {
  const { message } = item;
  return (
    <div class="turn" data-testid="turn">
      <div class="turn-line" data-nav>
        <span class="who">turn {item.turn}</span>
        <span class="muted">{message.model}</span>
        {item.durationMs !== undefined && <span>{duration(item.durationMs)}</span>}
        <span>
          {count(
            message.tokens.input_tokens +
              message.tokens.cache_read_input_tokens +
              message.tokens.cache_creation_input_tokens,
          )}{" "}
          in · {count(message.tokens.output_tokens)} out
        </span>
        <span>{money(message.costUsd)}</span>
        {message.agent && <span class="badge agent">{message.agent}</span>}
        {message.error && <span class="badge error">{message.error}</span>}
      </div>
      <Parts message={message} view={view} timeline={timeline} depth={depth} />
      {timeline.steps.has(message.id) && <StepDiff sessionId={view.session.id} {...timeline.steps.get(message.id)!} />}
    </div>
  );
}

function Parts({
  message,
  view,
  timeline,
  depth,
}: {
  message: StoredMessage;
  view: SessionView;
  timeline: Timeline;
  depth: number;
}) {
  const tools = toolParts(message);
  return (
    <div class="parts">
      {message.parts.map((part) => {
        if (part.type === "reasoning")
          return (
            <details class="thinking" key={part.id}>
              <summary>thinking{part.redacted ? " (redacted)" : ""}</summary>
              <pre>{part.text}</pre>
            </details>
          );
        if (part.type === "text" && !part.ignored) return <Markdown key={part.id} text={part.text} />;
        if (part.type === "compaction")
          return (
            <div class="marker" key={part.id}>
              compacted ({part.trigger}): {count(part.preTokens)} tokens before
            </div>
          );
        return null;
      })}
      {tools.map((part) => {
        const subtask = timeline.subtasks.get(part.callId);
        return (
          <ToolCall
            key={part.id}
            part={part}
            notes={timeline.notes.get(part.callId)}
            {...(timeline.writes.has(part.callId) && { before: timeline.writes.get(part.callId)! })}
          >
            {subtask && <Subagent subtask={subtask} view={view} depth={depth} />}
          </ToolCall>
        );
      })}
    </div>
  );
}

function Subagent({
  subtask,
  view,
  depth,
}: {
  subtask: NonNullable<ReturnType<Timeline["subtasks"]["get"]>>;
  view: SessionView;
  depth: number;
}) {
  const [open, setOpen] = useState(false);
  const child = view.subagents.find((s) => s.id === subtask.childSessionId);
  return (
    <div class="subagent" data-testid="subagent">
      <div class="subagent-line" data-nav data-open onClick={() => setOpen(!open)} role="button" aria-expanded={open}>
        <span class="badge agent">{subtask.agent ?? "subagent"}</span>
        <span>{subtask.description}</span>
        <span class="muted">{subtask.status}</span>
        <span>{subtask.costUsd === null ? "cost not known yet" : money(subtask.costUsd)}</span>
        {child && <span class="muted">{child.messageCount} messages</span>}
        <span class="link">{open ? "close" : "open"}</span>
      </div>
      {open && subtask.childSessionId && <NestedRun id={subtask.childSessionId} depth={depth + 1} />}
      {open && !subtask.childSessionId && <div class="muted">the subagent kept no session</div>}
    </div>
  );
}

function NestedRun({ id, depth }: { id: string; depth: number }) {
  const { view, error } = useSessionView(id);
  const timeline = useMemo(() => (view ? buildTimeline(view) : undefined), [view]);
  if (error) return <div class="error-box">{error}</div>;
  if (!view || !timeline) return <div class="muted">loading…</div>;
  return (
    <div class="nested" data-testid="nested-run">
      <Timeline_ view={view} timeline={timeline} depth={depth} />
    </div>
  );
}

/** A stored system message or result, as a line of the timeline. */
function EventLine({ event }: { event: SdkEvent }) {
  const field = (name: string) => String(event[name] ?? "");
  switch (event.type === "result" ? "result" : event.subtype) {
    case "init":
      return (
        <div class="marker" data-nav>
          run started · {field("model")} · mode {field("permissionMode")}
        </div>
      );
    case "result": {
      const reason = field("terminal_reason");
      const paused = reason === "requires_action";
      return (
        <div class={`result ${event.is_error ? "error" : ""} ${paused ? "paused" : ""}`} data-nav data-testid="result">
          <div>
            <span class="who">{paused ? "paused" : "result"}</span> {field("subtype")} · {reason} ·{" "}
            {Number(event.num_turns)} turns · {duration(Number(event.duration_ms))} ·{" "}
            {money(Number(event.total_cost_usd))}
          </div>
          {paused && Array.isArray(event.pending_tool_calls) && (
            <div class="muted">
              waiting on:{" "}
              {(event.pending_tool_calls as { kind: string; name: string }[])
                .map((c) => `${c.name} (${c.kind})`)
                .join(", ")}
            </div>
          )}
          {field("result") && <Markdown text={field("result")} />}
          {Array.isArray(event.errors) && event.errors.length > 0 && <pre>{(event.errors as string[]).join("\n")}</pre>}
        </div>
      );
    }
    case "compact_boundary": {
      const meta = (event.compact_metadata ?? {}) as { trigger?: string; pre_tokens?: number; post_tokens?: number };
      return (
        <div class="marker compaction" data-nav>
          compacted ({meta.trigger}): {count(meta.pre_tokens ?? 0)} tokens
          {meta.post_tokens !== undefined ? ` → ${count(meta.post_tokens)}` : ""}
        </div>
      );
    }
    case "api_retry":
      return (
        <div class="marker warn" data-nav>
          retry {field("attempt")}/{field("max_retries")} in {duration(Number(event.retry_delay_ms))}: {field("error")}
        </div>
      );
    case "model_fallback":
      return (
        <div class="marker warn" data-nav>
          fell back from {field("from_model")} to {field("to_model")}: {field("error")}
        </div>
      );
    case "handoff":
      return (
        <div class="marker" data-nav>
          handed off from {field("from")} to {field("to")} ({field("model")})
        </div>
      );
    case "no_tool_call":
      return (
        <div class="marker warn" data-nav>
          no tool call at turn {field("turn")}: reminded ({field("attempt")}/{field("max_attempts")})
        </div>
      );
    case "hook_response":
      return (
        <div class="marker" data-nav>
          hook {field("hook_event")} {field("hook_name")}: {field("outcome")} {field("output")}
        </div>
      );
    case "sandbox_violation":
      return (
        <div class="marker warn" data-nav>
          sandbox:{" "}
          {((event.violations ?? []) as { kind: string; target: string }[])
            .map((v) => `${v.kind} ${v.target}`)
            .join(", ")}
        </div>
      );
    default:
      return null;
  }
}
