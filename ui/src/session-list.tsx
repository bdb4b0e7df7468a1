import { useEffect, useMemo, useState } from "preact/hooks";
import { fetchSessions, onSessionChange } from "./api.js";
import { CostBars } from "./charts.js";
import { baseName, money, when } from "./format.js";
import type { SessionInfo } from "./types.js";

export function sessionStatus(session: SessionInfo): string {
  if (session.status.type === "busy") return "running";
  if (session.status.type === "retry") return "retrying";
  if (!session.lastResult) return "idle";
  if (session.lastResult.terminalReason === "requires_action") return "paused";
  return session.lastResult.isError ? "error" : "done";
}

/** The store's sessions (not subagents'), kept up to date by the server's events. */
function useSessions(): { sessions: SessionInfo[] | undefined; error?: string } {
  const [sessions, setSessions] = useState<SessionInfo[] | undefined>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    fetchSessions()
      .then((list) => live && setSessions(list))
      .catch((e: Error) => setError(e.message));
    const stop = onSessionChange((session) => {
      if (session.parentToolUseId !== null) return;
      setSessions((list) => {
        if (!list) return list;
        const rest = list.filter((s) => s.id !== session.id);
        return [session, ...rest].sort((a, b) => b.createdAt - a.createdAt);
      });
    });
    return () => {
      live = false;
      stop();
    };
  }, []);
  return error === undefined ? { sessions } : { sessions, error };
}

function options(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Cost per day of the sessions shown (their creation day), newest day first. */
function costPerDay(sessions: SessionInfo[]): [string, number][] {
  const days = new Map<string, number>();
  for (const session of sessions) {
    const day = new Date(session.createdAt).toISOString().slice(0, 10);
    days.set(day, (days.get(day) ?? 0) + session.costUsd);
  }
  return [...days].sort((a, b) => (a[0] < b[0] ? 1 : -1)).slice(0, 14);
}

/** The sessions page: search, filters by project, status and model, newest first. */
export function SessionList() {
  const { sessions, error } = useSessions();
  const [query, setQuery] = useState("");
  const [project, setProject] = useState("");
  const [status, setStatus] = useState("");
  const [model, setModel] = useState("");
  const shown = useMemo(() => {
    const needle = query.trim().toLowerCase();
    return (sessions ?? [])
      .filter((s) => !project || s.project === project)
      .filter((s) => !status || sessionStatus(s) === status)
      .filter((s) => !model || s.model === model)
      .filter((s) => !needle || `${s.title ?? ""} ${s.id} ${s.project} ${s.model ?? ""}`.toLowerCase().includes(needle))
      .sort((a, b) => b.createdAt - a.createdAt);
  }, [sessions, query, project, status, model]);
  if (error) return <div class="error-box">could not load the sessions: {error}</div>;
  if (!sessions) return <div class="muted">loading…</div>;
  return (
    <div class="sessions">
      <div class="filters">
        <input
          type="search"
          id="search"
          placeholder="search (/)"
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
        <select
          aria-label="project"
          value={project}
          onChange={(e) => setProject((e.target as HTMLSelectElement).value)}
        >
          <option value="">all projects</option>
          {options(sessions.map((s) => s.project)).map((p) => (
            <option value={p} key={p}>
              {baseName(p)}
            </option>
          ))}
        </select>
        <select aria-label="status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="">any status</option>
          {["running", "retrying", "paused", "done", "error", "idle"].map((s) => (
            <option value={s} key={s}>
              {s}
            </option>
          ))}
        </select>
        <select aria-label="model" value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
          <option value="">any model</option>
          {options(sessions.flatMap((s) => (s.model ? [s.model] : []))).map((m) => (
            <option value={m} key={m}>
              {m}
            </option>
          ))}
        </select>
        <span class="muted">
          {shown.length} of {sessions.length}
        </span>
      </div>
      <table class="session-table" data-testid="sessions">
        <thead>
          <tr>
            <th>status</th>
            <th>title</th>
            <th>project</th>
            <th>model</th>
            <th>started</th>
            <th>turns</th>
            <th>runs</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => {
            const state = sessionStatus(s);
            return (
              <tr
                key={s.id}
                data-nav
                data-open
                data-testid="session-row"
                data-id={s.id}
                onClick={() => (location.hash = `#/s/${encodeURIComponent(s.id)}`)}
              >
                <td>
                  <span class={`badge ${state}`}>{state}</span>
                </td>
                <td class="title">{s.title ?? s.id}</td>
                <td title={s.project}>{baseName(s.project)}</td>
                <td>{s.model ?? ""}</td>
                <td title={new Date(s.createdAt).toISOString()}>{when(s.createdAt)}</td>
                <td class="num" data-testid="turns">
                  {s.turns}
                </td>
                <td class="num">{s.runs}</td>
                <td class="num">{money(s.costUsd)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {shown.length === 0 && <div class="muted">no sessions{sessions.length > 0 ? " match" : " yet"}</div>}
      <section class="charts">
        <CostBars caption={`cost per day${project ? ` (${baseName(project)})` : ""}`} items={costPerDay(shown)} />
      </section>
    </div>
  );
}
