import type { SessionInfo, SessionStore } from "../sessions/index.js";
import type { UiScope } from "./scope.js";

/** How often the store is asked what changed while a page listens. */
export const POLL_MS = 500;

/**
 * Tells listening pages which sessions changed: while anyone listens, the store's most recently
 * updated sessions (subagents' included) are read every {@link POLL_MS}, and a session whose
 * update time, message count or status moved is handed to every listener. One listing per poll
 * whatever the number of pages; nothing runs while none listens. With a scope's project, only
 * that project's sessions are read (one `SessionChanges` per project: `gyre serve`'s keys).
 */
export class SessionChanges {
  readonly #store: SessionStore;
  readonly #scope: UiScope;
  readonly #listeners = new Set<(session: SessionInfo) => void>();
  readonly #seen = new Map<string, string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #polling = false;
  /** The first poll of a round of listening: what it finds is the starting point, not a change. */
  #started: Promise<void> = Promise.resolve();

  constructor(store: SessionStore, scope: UiScope = {}) {
    this.#store = store;
    this.#scope = scope;
  }

  /** Calls `listener` with each changed session until the returned function is called. */
  subscribe(listener: (session: SessionInfo) => void): () => void {
    this.#listeners.add(listener);
    if (this.#timer === undefined) {
      this.#started = this.#poll(false);
      this.#timer = setInterval(() => void this.#poll(true), POLL_MS);
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.close();
    };
  }

  /** Resolves once the store's state the listeners are told changes against has been read. */
  started(): Promise<void> {
    return this.#started;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#seen.clear();
  }

  async #poll(announce: boolean): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const { project } = this.#scope;
      const sessions = await this.#store.listSessions({
        subagents: "include",
        limit: 200,
        ...(project !== undefined && { project }),
      });
      for (const session of sessions) {
        const mark = `${session.updatedAt}:${session.messageCount}:${session.status}:${session.title ?? ""}`;
        if (this.#seen.get(session.id) === mark) continue;
        const known = this.#seen.has(session.id);
        this.#seen.set(session.id, mark);
        if (announce || known) for (const listener of this.#listeners) listener(session);
      }
    } catch {
      // A store that failed once (a busy database) is asked again at the next poll.
    } finally {
      this.#polling = false;
    }
  }
}
