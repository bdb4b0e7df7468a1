import type { RunBudget } from "../loop/index.js";
import type { Query } from "../run/index.js";
import type { McpServerStatus } from "../mcp/index.js";
import {
  emptyUsage,
  type PermissionMode,
  type SDKMessage,
  type TerminalReason,
  type Usage,
} from "../protocol/index.js";
import type { RewindFilesResult } from "../sessions/index.js";

/**
 * A run that starts only once `after` has settled (the previous exchange of its
 * conversation), made by `start` then, so it resumes the session as that exchange left it.
 * `done` is called once it has ended: run to its end, failed, or closed (`return`/`throw`,
 * started or not). Controls used before the start apply when it starts; accessors read
 * zero (`sessionId` the conversation's id, `budget` `beforeStart`'s) until then.
 */
export class QueuedRun implements Query {
  readonly #start: () => Query;
  readonly #after: Promise<unknown>;
  readonly #done: () => void;
  readonly #idBeforeStart: () => string;
  readonly #beforeStart: Pick<Query, "budget">;
  #inner: Query | undefined;
  #pending: Array<(run: Query) => void> = [];

  readonly #observe: ((message: SDKMessage) => void) | undefined;

  constructor(
    start: () => Query,
    after: Promise<unknown>,
    done: () => void,
    idBeforeStart: () => string,
    beforeStart: Pick<Query, "budget">,
    observe?: (message: SDKMessage) => void,
  ) {
    this.#start = start;
    this.#beforeStart = beforeStart;
    this.#observe = observe;
    this.#after = after.catch(() => {});
    this.#done = done;
    this.#idBeforeStart = idBeforeStart;
  }

  async next(...args: [] | [unknown]): Promise<IteratorResult<SDKMessage, void>> {
    const run = this.#inner ?? (await this.#started());
    try {
      const step = await run.next(...args);
      if (step.done) this.#done();
      else this.#observe?.(step.value);
      return step;
    } catch (error) {
      this.#done();
      throw error;
    }
  }

  async return(value?: void | PromiseLike<void>): Promise<IteratorResult<SDKMessage, void>> {
    try {
      if (this.#inner) return await this.#inner.return(value);
      return { done: true, value: undefined };
    } finally {
      this.#done();
    }
  }

  async throw(error: unknown): Promise<IteratorResult<SDKMessage, void>> {
    try {
      if (this.#inner) return await this.#inner.throw(error);
      throw error;
    } finally {
      this.#done();
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  interrupt(): Promise<void> {
    return this.#control((run) => run.interrupt());
  }
  setPermissionMode(mode: PermissionMode): Promise<void> {
    return this.#control((run) => run.setPermissionMode(mode));
  }
  setModel(model?: string): Promise<void> {
    return this.#control((run) => run.setModel(model));
  }
  compact(instructions?: string): void {
    void this.#control(async (run) => run.compact(instructions));
  }
  mcpServerStatus(): Promise<McpServerStatus[]> {
    return this.#control((run) => run.mcpServerStatus());
  }
  reconnectMcpServer(serverName: string): Promise<void> {
    return this.#control((run) => run.reconnectMcpServer(serverName));
  }
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    return this.#control((run) => run.toggleMcpServer(serverName, enabled));
  }
  rewindFiles(messageUuid: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult> {
    return this.#control((run) => run.rewindFiles(messageUuid, options));
  }
  get sessionId(): string {
    return this.#inner?.sessionId ?? this.#idBeforeStart();
  }
  get usage(): Usage {
    return this.#inner?.usage ?? emptyUsage();
  }
  get totalCostUsd(): number {
    return this.#inner?.totalCostUsd ?? 0;
  }
  get numTurns(): number {
    return this.#inner?.numTurns ?? 0;
  }
  get budget(): RunBudget {
    return this.#inner?.budget ?? this.#beforeStart.budget;
  }
  get exitReason(): TerminalReason | undefined {
    return this.#inner?.exitReason;
  }

  async #started(): Promise<Query> {
    await this.#after;
    if (!this.#inner) {
      this.#inner = this.#start();
      for (const apply of this.#pending.splice(0)) apply(this.#inner);
    }
    return this.#inner;
  }

  /** Runs `use` on the run now, or once it starts. */
  #control<T>(use: (run: Query) => Promise<T>): Promise<T> {
    if (this.#inner) return use(this.#inner);
    return new Promise<T>((resolve, reject) => {
      this.#pending.push((run) => use(run).then(resolve, reject));
    });
  }
}
