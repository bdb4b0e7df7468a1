import type { ToolSession } from "../../tool-session.js";
import { spillDirectoryOf } from "./spill-directory.js";

/**
 * The foreground commands running in a session. The loop may stop waiting for a call that
 * was aborted; when the session ends, each command still running is stopped and awaited,
 * so no run ends while a process of one of its calls is still alive.
 */
export class ForegroundCalls {
  readonly #ending = new AbortController();
  readonly #running = new Set<Promise<unknown>>();

  /** Aborted when the session ends. */
  get signal(): AbortSignal {
    return this.#ending.signal;
  }

  /** Track `call` until it settles; returns it. */
  track<T>(call: Promise<T>): Promise<T> {
    this.#running.add(call);
    const forget = () => this.#running.delete(call);
    call.then(forget, forget);
    return call;
  }

  /** Stop every call still running and wait until each has verified its processes are gone. */
  async end(): Promise<void> {
    this.#ending.abort();
    await Promise.allSettled([...this.#running]);
  }
}

const KEY = Symbol("gyre.bash.foregroundCalls");

export function foregroundCallsOf(session: ToolSession): ForegroundCalls {
  return session.get(KEY, () => {
    // Registered first so that it is disposed last: commands stop writing before their files go.
    spillDirectoryOf(session);
    const calls = new ForegroundCalls();
    session.onDispose(() => calls.end());
    return calls;
  });
}
