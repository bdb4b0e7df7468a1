import { randomUUID } from "node:crypto";
import { type Query, type QueryOptions, type QueryPrompt, query } from "../loop/index.js";
import { MemorySessionStore } from "../sessions/index.js";

/** Options that pick a conversation; they belong to `agent.session()` or one `agent.query()`, not the agent. */
type ConversationKeys = "resume" | "continue" | "forkSession" | "resumeSessionAt" | "sessionId" | "abortController";

/** Reusable configuration: model, tools, hooks, permissions, store... — no conversation state. */
export type AgentOptions = Omit<QueryOptions, ConversationKeys>;

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
 * while another runs fails with `session_busy`.
 */
export class AgentSession {
  readonly #agent: Agent;
  readonly #options: AgentSessionOptions;
  #last: Query | undefined;

  constructor(agent: Agent, options: AgentSessionOptions = {}) {
    this.#agent = agent;
    const memory =
      (options.persistSession ?? agent.options.persistSession) === false &&
      !(options.sessionStore ?? agent.options.sessionStore);
    this.#options = {
      ...options,
      ...(memory && { sessionStore: new MemorySessionStore() }),
      ...(options.resume === undefined && !options.continue && { sessionId: options.sessionId ?? randomUUID() }),
    };
  }

  /** The session id; known from the start for a new conversation, after the first exchange for a fork or `continue`. */
  get id(): string | undefined {
    return this.#last?.sessionId ?? this.#options.resume ?? this.#options.sessionId;
  }

  /** Streams the messages of one exchange: the prompt, the agent's work, and a `result`. */
  send(prompt: QueryPrompt, options: QueryOptions = {}): Query {
    const { resume, continue: _continue, forkSession, resumeSessionAt, sessionId, ...rest } = this.#options;
    const where: QueryOptions =
      this.#last === undefined
        ? {
            ...(resume !== undefined && { resume }),
            ...(_continue !== undefined && { continue: _continue }),
            ...(forkSession !== undefined && { forkSession }),
            ...(resumeSessionAt !== undefined && { resumeSessionAt }),
            ...(sessionId !== undefined && { sessionId }),
          }
        : { resume: this.#last.sessionId };
    const run = this.#agent.query(prompt, { ...rest, ...options, ...where });
    this.#last = run;
    return run;
  }
}
