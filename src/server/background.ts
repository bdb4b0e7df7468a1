import { EventLog } from "./event-log.js";
import type { ResponseObject } from "./response-object.js";
import type { PreparedResponse } from "./prepare-response.js";
import type { RunDependencies } from "./run-dependencies.js";
import { runResponse } from "./run-response.js";
import type { NumberedEvent, StreamEventBody } from "./stream-event.js";

/** Takes a response's events one by one; `undefined` once the stream has ended. */
export type EventListener = (event: NumberedEvent | undefined) => void;

/**
 * Runs `background: true` responses apart from the request that created them. The in-process
 * runner below is the default; a runner backed by a job queue and workers can take its place
 * (then `follow` and `cancel` reach the worker that runs the response, and it runs the other
 * responses too: `run`).
 */
export interface BackgroundRunner {
  /**
   * Stores the response as `queued` and starts it; resolves once it is stored. `finished` is
   * called when the run ends, however it ends (the per-key concurrency slot is given back then).
   */
  start(prepared: PreparedResponse, finished?: () => void): Promise<void>;
  /**
   * Replays a response's events after `startingAfter` and follows them to the end, when it is
   * running (or queued) through this runner; `undefined` when it is not: its stored events are
   * all there is. Resolves to a function that stops following.
   */
  follow(id: string, startingAfter: number, listener: EventListener): Promise<(() => void) | undefined>;
  /**
   * Runs a response that is not a background one, its events through `emit`, to its end
   * (`signal`: the client went away). Without it the server runs such responses in process.
   */
  run?(
    prepared: PreparedResponse,
    emit: (event: StreamEventBody) => void,
    signal: AbortSignal,
  ): Promise<ResponseObject>;
  /** Cancels a response this runner is running and waits until it has stopped; false if it runs nowhere here. */
  cancel(id: string): Promise<boolean>;
  /** Cancels every running response and waits for them (the server is closing). */
  close(): Promise<void>;
}

interface Running {
  log: EventLog;
  abort: AbortController;
  done: Promise<void>;
}

/** Background responses as tasks of this process: they outlive their request, not the process. */
export class InProcessRunner implements BackgroundRunner {
  readonly #running = new Map<string, Running>();

  constructor(private readonly deps: RunDependencies) {}

  async start(prepared: PreparedResponse, finished?: () => void): Promise<void> {
    const { response } = prepared;
    const queued: ResponseObject = { ...structuredClone(response), status: "queued" };
    await this.deps.responses.save(
      {
        owner: prepared.owner,
        response: queued,
        inputItems: prepared.inputItems,
        runSessionId: `${response.id}-run`,
      },
      { first: true },
    );
    const log = new EventLog();
    const abort = new AbortController();
    const done = this.#run(prepared, log, abort.signal).finally(() => {
      this.#running.delete(response.id);
      finished?.();
    });
    this.#running.set(response.id, { log, abort, done });
  }

  async #run(prepared: PreparedResponse, log: EventLog, signal: AbortSignal): Promise<void> {
    try {
      await runResponse(this.deps, prepared, (event) => log.append(event), signal);
      // The events stay with the stored response, so a late reader can replay them.
      await this.deps.responses.appendEvents(prepared.response.id, log.events);
    } catch (error) {
      log.append({
        type: "error",
        error: { type: "server_error", code: "server_error", message: String(error), param: null },
      });
    } finally {
      log.end();
    }
  }

  async follow(id: string, startingAfter: number, listener: EventListener): Promise<(() => void) | undefined> {
    return this.#running.get(id)?.log.follow(startingAfter, listener);
  }

  async cancel(id: string): Promise<boolean> {
    const running = this.#running.get(id);
    if (!running) return false;
    running.abort.abort();
    await running.done;
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#running.keys()].map((id) => this.cancel(id)));
  }
}
