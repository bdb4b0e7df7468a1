import type { SessionInfo, SessionView } from "./types.js";

/** The page's calls to `gyre ui`: same origin, the token in the cookie the first visit set. */
async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: "same-origin", headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${response.statusText}`);
  return (await response.json()) as T;
}

export function fetchSessions(): Promise<SessionInfo[]> {
  return getJson<{ sessions: SessionInfo[] }>("api/sessions").then((body) => body.sessions);
}

export function fetchSession(id: string): Promise<SessionView> {
  return getJson<SessionView>(`api/sessions/${encodeURIComponent(id)}`);
}

type Listener = (session: SessionInfo) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;

/** Calls `listener` with each session the store changed (server-sent events), until the returned function is called. */
export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  if (!source) {
    source = new EventSource("api/events");
    source.addEventListener("session", (event) => {
      const session = JSON.parse((event as MessageEvent<string>).data) as SessionInfo;
      for (const each of listeners) each(session);
    });
  }
  return () => {
    listeners.delete(listener);
  };
}

/** What a step changed: the git diff between two snapshots of the session's folder. */
export function fetchStepDiff(id: string, from: string, to: string): Promise<string> {
  const query = new URLSearchParams({ from, to });
  return getJson<{ diff: string }>(`api/sessions/${encodeURIComponent(id)}/step-diff?${query}`).then(
    (body) => body.diff,
  );
}
