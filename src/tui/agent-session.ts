import type { ElicitationRequest, ElicitationResult } from "../mcp/index.js";
import type { PermissionResult, PermissionUpdate } from "../permissions/index.js";
import type { PermissionMode, SDKMessage, UserContentBlock } from "../protocol/index.js";
import { query } from "../agents/index.js";
import { MODEL_ALIASES, type Query, type QueryOptions, startModel } from "../run/index.js";
import { PromptQueue } from "../cli/index.js";

/** A tool call waiting on the person: what it is, and how to answer it. */
export interface PermissionRequest {
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  reason: string;
  suggestions: PermissionUpdate[];
  answer(result: PermissionResult): void;
}

/** An MCP server asking the person for input: what it asks, and how to answer it. */
export interface PendingElicitation {
  /** Tells one request from the next (they may ask the same). */
  id: number;
  request: ElicitationRequest;
  answer(result: ElicitationResult): void;
}

export interface AgentSessionEvents {
  /** Every message of the running query, in order. */
  onMessage(message: SDKMessage): void;
  /** A call needs approval; answer through `request.answer`. Cancelled calls are answered deny by the session. */
  onPermission(request: PermissionRequest | undefined): void;
  /** An MCP server asks for input (undefined: answered, or withdrawn). */
  onElicitation?(elicitation: PendingElicitation | undefined): void;
  /** The running query ended (idle between prompts, or after an interrupt or an error). */
  onIdle(error?: unknown): void;
}

interface RunningQuery {
  query: Query;
  prompts: PromptQueue;
  /** Settles once the query's messages are all read (it never rejects). */
  ended: Promise<void>;
}

/**
 * The conversation with the loop behind the interactive terminal: one long `query()` fed
 * prompt by prompt (streaming input). Interrupting ends that query; the next prompt opens a
 * new one that resumes the same session, so an interrupt never loses the conversation.
 */
export class AgentSession {
  #base: QueryOptions;
  readonly #events: AgentSessionEvents;
  #running: RunningQuery | undefined;
  #sessionId: string | undefined;
  #model: string | undefined;
  #mode: PermissionMode;
  #busy = false;
  /** What queries that ended spent, so the status shows the whole session's cost. */
  #spentBefore = 0;
  #spentNow = 0;
  #pending: PermissionRequest | undefined;
  #elicitation: PendingElicitation | undefined;
  #elicitations: Promise<void> = Promise.resolve();
  #elicitationCount = 0;

  constructor(base: QueryOptions, events: AgentSessionEvents) {
    this.#base = base;
    this.#events = events;
    this.#model = typeof base.model === "string" ? base.model : undefined;
    this.#mode = base.permissionMode ?? "default";
    this.#sessionId = base.resume;
  }

  /** The options each query of the session starts with (the permission mode and model aside). */
  get options(): QueryOptions {
    return this.#base;
  }

  /**
   * The person trusted the folder for this session only: its project and local settings, agent
   * files and `.mcp.json` servers apply to the queries started from now on. Nothing is recorded.
   */
  trustProjectForSession(): void {
    this.#base = { ...this.#base, requireProjectTrust: false };
  }

  get sessionId(): string | undefined {
    return this.#running?.query.sessionId ?? this.#sessionId;
  }
  get busy(): boolean {
    return this.#busy;
  }
  get mode(): PermissionMode {
    return this.#mode;
  }
  get costUsd(): number {
    return this.#spentBefore + this.#spentNow;
  }

  /** Sends a prompt: into the running query, or a new one resuming the session. */
  send(content: string | UserContentBlock[]): void {
    this.#busy = true;
    (this.#running ?? this.#start()).prompts.say(content);
  }

  /** Ends the conversation and goes on with a stored session from the next prompt (`/resume`). */
  async switchTo(sessionId: string): Promise<void> {
    await this.close();
    this.#sessionId = sessionId;
    this.#spentBefore = 0;
  }

  /** The MCP servers of the running query; undefined when none runs yet (they connect with the first prompt). */
  async mcpStatus(): Promise<Awaited<ReturnType<Query["mcpServerStatus"]>> | undefined> {
    return this.#running?.query.mcpServerStatus();
  }

  /** Stops the running turn; the session stays and the next prompt resumes it. */
  async interrupt(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#pending?.answer({ behavior: "deny", message: "The person interrupted the turn.", interrupt: true });
    this.#elicitation?.answer({ action: "cancel" });
    await running.query.interrupt();
    await running.ended;
  }

  /** Ends the conversation and starts a new session with the next prompt. */
  async clear(): Promise<void> {
    await this.close();
    this.#sessionId = undefined;
    this.#spentBefore = 0;
  }

  async setMode(mode: PermissionMode): Promise<void> {
    this.#mode = mode;
    await this.#running?.query.setPermissionMode(mode);
  }

  /**
   * Another model from the next call on (`sonnet`, `opus`, `haiku` name the current ones):
   * resolved now, its provider's key included, whether or not a query runs, so a model that
   * cannot answer is refused here, with the reason, and the session keeps its model. Resolves
   * with the model id it goes on with.
   */
  async setModel(model: string | undefined): Promise<string | undefined> {
    const spec = model === undefined ? undefined : (MODEL_ALIASES[model] ?? model);
    await startModel({ ...this.#base, model: spec });
    if (this.#running) await this.#running.query.setModel(spec);
    this.#model = spec;
    return spec;
  }

  /**
   * Compacts before the next model call. With no query running, one is started on the session
   * the conversation goes on with (`--continue`, `--resume`, after an interrupt); false when
   * there is none yet (nothing to compact).
   */
  compact(instructions?: string): boolean {
    if (!this.#running && this.#sessionId === undefined) return false;
    (this.#running ?? this.#start()).query.compact(instructions);
    return true;
  }

  /** Ends the running query cleanly (its prompts close, the session is saved). */
  async close(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    if (this.#busy) await this.interrupt();
    else {
      running.prompts.close();
      await running.ended;
    }
  }

  #start(): RunningQuery {
    const prompts = new PromptQueue();
    const options: QueryOptions = {
      ...this.#base,
      model: this.#model,
      permissionMode: this.#mode,
      resume: this.#sessionId,
      continue: this.#sessionId ? false : this.#base.continue,
      includePartialMessages: true,
      // The model may ask the person (answered in the prompt box's place); not the other
      // loop-control tools, whose answers would not read as the conversation's text.
      loopControlTools: this.#base.loopControlTools ?? ["ask_question"],
      onElicitation: this.#base.onElicitation ?? ((request, { signal }) => this.#elicit(request, signal)),
      canUseTool: (toolName, input, { signal, suggestions, toolUseID, decisionReason }) =>
        new Promise<PermissionResult>((resolve) => {
          const request: PermissionRequest = {
            toolName,
            input,
            toolUseId: toolUseID,
            reason: decisionReason,
            suggestions,
            answer: (result) => {
              if (this.#pending !== request) return;
              this.#pending = undefined;
              this.#events.onPermission(undefined);
              resolve(result);
            },
          };
          signal.addEventListener("abort", () => request.answer({ behavior: "deny", message: "Interrupted." }), {
            once: true,
          });
          this.#pending = request;
          this.#events.onPermission(request);
        }),
    };
    const q = query({ prompt: prompts, options });
    const running: RunningQuery = { query: q, prompts, ended: Promise.resolve() };
    running.ended = this.#drain(running);
    this.#running = running;
    this.#spentNow = 0;
    return running;
  }

  /** One server question at a time on screen: a later one waits for the one before. */
  #elicit(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationResult> {
    const asked = this.#elicitations.then(
      () =>
        new Promise<ElicitationResult>((resolve) => {
          if (signal.aborted) return resolve({ action: "cancel" });
          const pending: PendingElicitation = {
            id: ++this.#elicitationCount,
            request,
            answer: (result) => {
              if (this.#elicitation !== pending) return;
              this.#elicitation = undefined;
              signal.removeEventListener("abort", withdrawn);
              this.#events.onElicitation?.(undefined);
              resolve(result);
            },
          };
          const withdrawn = () => pending.answer({ action: "cancel" });
          signal.addEventListener("abort", withdrawn, { once: true });
          this.#elicitation = pending;
          this.#events.onElicitation?.(pending);
        }),
    );
    this.#elicitations = asked.then(
      () => undefined,
      () => undefined,
    );
    return asked;
  }

  async #drain(running: { query: Query; prompts: PromptQueue }): Promise<void> {
    let failure: unknown;
    try {
      for await (const message of running.query) {
        if (message.type === "system" && message.subtype === "init") this.#sessionId = message.session_id;
        if (message.type === "result") {
          this.#spentNow = message.total_cost_usd;
          this.#busy = false;
        }
        this.#events.onMessage(message);
      }
    } catch (error) {
      failure = error;
    } finally {
      running.prompts.close();
      this.#sessionId = running.query.sessionId;
      this.#spentBefore += this.#spentNow;
      this.#spentNow = 0;
      this.#busy = false;
      if (this.#running?.query === running.query) this.#running = undefined;
      this.#events.onIdle(failure);
    }
  }
}
