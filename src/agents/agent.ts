import { randomUUID } from "node:crypto";
import { type Query, type QueryOptions, type QueryPrompt } from "../run/index.js";
import { query } from "./query.js";
import { MemorySessionStore, nextSessionStatus, sameStatus, type SessionStatus } from "../sessions/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { QueuedRun } from "./queued-run.js";

/**
 * Reusable configuration: model, tools, hooks, permissions, store... — no conversation state.
 * The options that pick a conversation belong to `agent.session()` or one `agent.query()`.
 */
export type AgentOptions = Omit<
  QueryOptions,
  "resume" | "continue" | "forkSession" | "resumeSessionAt" | "sessionId" | "abortController"
>;

/** Where a conversation starts: new (default), or an existing session resumed, continued or forked. */
export type AgentSessionOptions = QueryOptions;

/**
 * An agent: configuration shared by any number of runs and conversations. It holds no
 * conversation state, so one `Agent` can serve many users at once.
 */
export class Agent {
  readonly options: AgentOptions;

  constructor(options: AgentOptions = {}) {
    this.options = { ...options };
  }

  /** One run of the loop with the agent's options (`options` override them). */
  query(prompt: QueryPrompt, options: QueryOptions = {}): Query {
    return query({ prompt, options: { ...this.options, ...options } });
  }

  /** A conversation: each `send` is one exchange, and the history carries over. */
  session(options: AgentSessionOptions = {}): AgentSession {
    return new AgentSession(this, options);
  }
}

/**
 * A multi-turn conversation over one session. Each `send` runs the loop with the session's
 * history (it resumes the stored session), so the conversation is persisted like any run
 * and can be picked up later with `resume: session.id`. With `persistSession: false` the
 * history lives in memory for this object's lifetime. One exchange at a time: a `send`
 * made while another is under way waits for it to end (its messages come once it has),
 * then goes on in the session as that one left it, so overlapping sends run in the order
 * they were made and none fails for the other. A send that is never iterated holds up the
 * later ones until it is closed (`return()`).
 */
export class AgentSession {
  readonly #agent: Agent;
  readonly #options: AgentSessionOptions;
  #last: Query | undefined;
  /** Settles when the latest send has ended: the next one starts after it. */
  #previous: Promise<void> = Promise.resolve();
  #status: SessionStatus = { type: "idle" };
  readonly #listeners = new Set<(status: SessionStatus) => void>();

  constructor(agent: Agent, options: AgentSessionOptions = {}) {
    this.#agent = agent;
    const memory =
      (options.persistSession ?? agent.options.persistSession) === false &&
      !(options.sessionStore ?? agent.options.sessionStore);
    this.#options = {
      ...options,
      ...(memory && { sessionStore: new MemorySessionStore() }),
      // A new conversation, or a fork (which takes the id it is given), has its id from the start.
      ...(((options.resume === undefined && !options.continue) ||
        options.forkSession ||
        options.resumeSessionAt !== undefined) && { sessionId: options.sessionId ?? randomUUID() }),
    };
  }

  /** The session id; known from the start for a new conversation or a fork, after the first exchange for `continue`. */
  get id(): string | undefined {
    return this.#last?.sessionId ?? this.#options.sessionId ?? this.#options.resume;
  }

  /** What the conversation is doing: `idle`, `busy` while an exchange runs, `retry` while it waits to resend a model request. */
  get status(): SessionStatus {
    return this.#status;
  }

  /**
   * Calls `listener` with each new status as the exchanges' messages are read (the same status
   * the session store keeps: `SessionInfo.status`). Returns the function that stops it.
   */
  onStatus(listener: (status: SessionStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #setStatus(status: SessionStatus): void {
    if (sameStatus(this.#status, status)) return;
    this.#status = status;
    for (const listener of this.#listeners) listener(status);
  }

  /** Streams the messages of one exchange: the prompt, the agent's work, and a `result`. */
  send(prompt: QueryPrompt, options: QueryOptions = {}): Query {
    const { resume: _r, continue: _c, forkSession: _f, resumeSessionAt: _a, sessionId: _s, ...rest } = this.#options;
    const previous = this.#last;
    const make = () => this.#agent.query(prompt, { ...rest, ...options, ...this.#where(previous) });
    // Made now so bad options fail here, as a plain query's do; nothing runs until a message is pulled.
    const checked = make();
    // A later exchange is made when it starts: the session it resumes is the one the previous left.
    const start = previous === undefined ? () => checked : make;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = () => {
        // Closed early or failed: no result said so, but the exchange is over.
        this.#setStatus({ type: "idle" });
        resolve();
      };
    });
    const observe = (message: SDKMessage) => this.#setStatus(nextSessionStatus(this.#status, message, Date.now()));
    const id = () => previous?.sessionId ?? checked.sessionId;
    const run = new QueuedRun(start, this.#previous, finish, id, checked, observe);
    this.#previous = finished;
    this.#last = run;
    return run;
  }

  /** Where the next exchange runs: where the conversation starts, or the session `previous` ran in. */
  #where(previous: Query | undefined): QueryOptions {
    if (previous !== undefined) return { resume: previous.sessionId };
    const { resume, continue: _continue, forkSession, resumeSessionAt, sessionId } = this.#options;
    return {
      ...(resume !== undefined && { resume }),
      ...(_continue !== undefined && { continue: _continue }),
      ...(forkSession !== undefined && { forkSession }),
      ...(resumeSessionAt !== undefined && { resumeSessionAt }),
      ...(sessionId !== undefined && { sessionId }),
    };
  }
}
