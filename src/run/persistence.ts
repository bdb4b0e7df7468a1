import { accessSync, closeSync, constants, existsSync, openSync, readSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fsErrorCode, GyreError } from "../errors/index.js";
import { openVerified, realTargetOf } from "../files/index.js";
import type { HistoryEntry, PendingToolCall, SDKMessage } from "../protocol/index.js";
import {
  conversationFromMessages,
  defaultSqlitePath,
  FILE_EDIT_TOOLS,
  openDefaultSessionStore,
  projectOf,
  projectSqlitePath,
  type SessionLock,
  type SessionStore,
} from "../sessions/index.js";
import type { AnyTool } from "../tools/index.js";
import type { QueryOptions } from "./options.js";
import type { ChildSessionStore } from "./agent-wiring.js";
import { appendDurably } from "./durable-append.js";
import { pendingToolCalls, type UnfinishedRun, uniqueHistoryToolUseIds } from "../loop/index.js";

/** What a resumed session says of its run: calls it waits on, the agent it runs as, where it stopped. */
interface ResumedSession {
  pending: PendingToolCall[];
  /** The span where the run paused on them (its result's `traceparent`). */
  pausedTrace?: string | undefined;
  agent?: string | undefined;
  unfinished?: UnfinishedRun | undefined;
}

/** A store with this run's session in it, locked for the run. */
interface OpenedSession {
  store: SessionStore;
  lock: SessionLock;
}

/** A store not opened yet: how to open it, and the messages recorded meanwhile. */
interface DeferredStore {
  open: () => Promise<OpenedSession>;
  waiting: SDKMessage[];
}

/**
 * A run's link to its session store: which session it writes, the history it resumes
 * from, the lock that keeps other loops out, and file checkpoints before edits.
 * With `persistSession: false` every method is a no-op and the history is empty.
 *
 * A new session in the default SQLite store is opened when the run calls {@link openStore}
 * (it does once the model starts answering its first request), so that opening it does not
 * delay that request. What is recorded before (init, prompt, hook reports, retries) waits in
 * order and is stored first; the model's answer, and everything after, waits until the store
 * is open, and opens it if nothing did before.
 */
export class Persistence {
  /** tool_use id → uuid of the assistant message that made the call (for checkpoints). */
  readonly #callers = new Map<string, string>();
  /** The session's store and lock; a promise while a deferred store opens; undefined when nothing is kept. */
  #session: OpenedSession | Promise<OpenedSession> | undefined;
  /** A deferred store, until it starts opening. */
  #deferred: DeferredStore | undefined;
  /** Messages a session of one of the run's subagents stored already (copies passed up to this run's stream). */
  readonly #storedElsewhere = new WeakSet<SDKMessage>();

  /** The calls the session's run paused on, still unanswered (see `pendingToolCalls`). */
  readonly pending: PendingToolCall[];
  /** With pending calls: the W3C traceparent of the span where the run paused, when it was traced. */
  readonly pausedTrace: string | undefined;
  /** The agent the session's main thread was last handed to (see agents/handoffs.ts). */
  readonly agent: string | undefined;
  /** With `continueRun`: where the run its process left stopped. */
  readonly unfinished: UnfinishedRun | undefined;

  private constructor(
    readonly sessionId: string,
    readonly history: HistoryEntry[],
    session: OpenedSession | undefined,
    openLater: (() => Promise<OpenedSession>) | undefined,
    private readonly ownsStore: boolean,
    resumed: ResumedSession = { pending: [] },
  ) {
    this.pending = resumed.pending;
    this.pausedTrace = resumed.pausedTrace;
    this.agent = resumed.agent;
    this.unfinished = resumed.unfinished;
    this.#session = session;
    this.#deferred = openLater && { open: openLater, waiting: [] };
  }

  /**
   * Opens the store and the session the options ask for: a new one (`proposedId`),
   * `resume`, `continue` (latest of the project: the real path of `cwd`), forked with
   * `forkSession` or at `resumeSessionAt` (which always continues in a fork, with the id
   * `proposedId`, so the original keeps its later messages). Takes the session's lock; a
   * loop already running on it is `session_busy`. Without `sessionStore` the store is the
   * user's default SQLite file (see `openDefaultSessionStore`).
   */
  static async open(options: QueryOptions, cwd: string, proposedId: string): Promise<Persistence> {
    const wantsResume = options.resume !== undefined || options.continue === true;
    if (options.persistSession === false && !options.sessionStore) {
      if (wantsResume)
        throw new GyreError("config_error", "resume and continue need a session store; persistSession is false");
      return new Persistence(proposedId, [], undefined, undefined, false);
    }
    // The project is a real path (a syscall): only a new session or `continue` needs it.
    const where = (): SessionPlace => ({ cwd, project: projectOf(cwd) });
    // A new session (random id) in the default store: opened later, by openStore().
    const fresh = !wantsResume && options.sessionId === undefined && options.resumeSessionAt === undefined;
    if (fresh && !options.sessionStore && canOpenDefaultLater(cwd))
      return new Persistence(proposedId, [], undefined, () => openNewSession(proposedId, where()), true);
    const ownsStore = !options.sessionStore;
    const store = options.sessionStore ?? (await openDefaultSessionStore(cwd));
    let lock: SessionLock | undefined;
    try {
      const sourceId =
        options.resume ?? (options.continue ? (await store.latestSession(where().project))?.id : undefined);
      if (sourceId === undefined) {
        if (options.resumeSessionAt !== undefined)
          throw new GyreError("config_error", "resumeSessionAt needs resume or continue");
        const session = await createLocked(store, proposedId, where());
        return new Persistence(session.lock.sessionId, [], session, undefined, ownsStore);
      }
      let sessionId = sourceId;
      if (options.forkSession || options.resumeSessionAt !== undefined) {
        const fork = await store.forkSession(sourceId, {
          id: proposedId,
          ...(options.resumeSessionAt !== undefined ? { upTo: options.resumeSessionAt } : {}),
        });
        sessionId = fork.id;
      }
      lock = await store.acquireLock(sessionId);
      const messages = await store.getSessionMessages(sessionId);
      const pending = pendingToolCalls(messages);
      const unfinished = options.continueRun ? unfinishedRun(sessionId, messages) : undefined;
      // Calls that were running when a taken-over run's process died get their results from its first step.
      const open = [...pending, ...(unfinished?.at === "tools" ? unfinished.calls : [])];
      const history = toHistory(messages, new Set(open.map((call) => call.id)));
      const resumed = {
        pending,
        pausedTrace: pending.length > 0 ? pausedTrace(messages) : undefined,
        agent: lastHandoff(messages),
        unfinished,
      };
      return new Persistence(sessionId, history, { store, lock }, undefined, ownsStore, resumed);
    } catch (error) {
      await lock?.release();
      if (ownsStore) await store.close();
      throw error;
    }
  }

  /**
   * Stores a message (stream events are skipped) before it reaches the caller, except as said
   * above. A subagent's messages are not: its own session has them (see {@link childSessions}).
   */
  async record(message: SDKMessage): Promise<void> {
    if (message.type === "stream_event" || this.#storedElsewhere.has(message)) return;
    if (message.type === "assistant") {
      for (const block of message.message.content)
        if (block.type === "tool_use") this.#callers.set(block.id, message.uuid);
    }
    if (this.#deferred) {
      if (message.type === "system" || message.type === "user") {
        this.#deferred.waiting.push(message);
        return;
      }
      this.#openDeferred();
    }
    if (this.#session === undefined) return;
    const { store } = await this.#session;
    await appendDurably(store, this.sessionId, message);
  }

  /**
   * Where the run's subagents keep their sessions: this run's store, project and `cwd`.
   * Undefined when the run keeps no session (`persistSession: false`): then neither are theirs.
   */
  childSessions(cwd: string): ChildSessionStore | undefined {
    if (this.#session === undefined && !this.#deferred) return undefined;
    let place: SessionPlace | undefined;
    return {
      open: async () => {
        // A subagent starts after its parent's model answer was recorded, which opened the store.
        if (this.#session === undefined) throw new GyreError("session_store_error", "The session store is not open");
        return (await this.#session).store;
      },
      storedElsewhere: this.#storedElsewhere,
      // A real path (a syscall): only a subagent's session needs it.
      get place() {
        return (place ??= { cwd, project: projectOf(cwd) });
      },
    };
  }

  /**
   * File-editing tools (by {@link FILE_EDIT_TOOLS}) get a checkpoint of the file's content
   * before they run, under the assistant message that made the call; other tools pass.
   */
  withCheckpoints(tool: AnyTool): AnyTool {
    const field = FILE_EDIT_TOOLS[tool.name];
    const execute = tool.execute;
    if ((this.#session === undefined && !this.#deferred) || field === undefined || !execute) return tool;
    return {
      ...tool,
      execute: async (input, context) => {
        const path = (input as Record<string, unknown>)[field];
        const caller = this.#callers.get(context.toolUseId);
        // The call's assistant message is recorded, so the store is open or opening.
        if (typeof path === "string" && caller !== undefined && this.#session !== undefined) {
          const { store } = await this.#session;
          const filePath = resolve(context.cwd, path);
          const before = await contentOf(filePath, context.files?.approvedPath);
          if (before !== undefined) await store.saveCheckpoint(this.sessionId, caller, filePath, before);
        }
        return execute.call(tool, input, context);
      },
    };
  }

  /** Stores messages still waiting, releases the lock and closes a store this run opened. */
  async close(): Promise<void> {
    this.#openDeferred();
    if (this.#session === undefined) return;
    const { store, lock } = await this.#session;
    try {
      await lock.release();
    } finally {
      if (this.ownsStore) await store.close();
    }
  }

  /**
   * Starts opening a store deferred so far (a new session in the default store) when messages
   * wait for it; a failure surfaces at the next record() or at close(). Does nothing when the
   * store is open or opening, or nothing is kept.
   */
  openStore(): void {
    if (this.#deferred && this.#deferred.waiting.length > 0) this.#openDeferred();
  }

  /** Starts opening a deferred store that has messages waiting; they are stored first. */
  #openDeferred(): void {
    const deferred = this.#deferred;
    if (!deferred) return;
    this.#deferred = undefined;
    if (deferred.waiting.length === 0) return;
    const opening = (async () => {
      const session = await deferred.open();
      try {
        for (const message of deferred.waiting) await session.store.append(this.sessionId, message);
      } catch (error) {
        await session.lock.release();
        await session.store.close();
        throw error;
      }
      this.#session = session;
      return session;
    })();
    // A failure surfaces at the next record() or at close().
    opening.catch(() => {});
    this.#session = opening;
  }
}

/** Where a session runs: its cwd, and the project it is listed under. */
interface SessionPlace {
  cwd: string;
  project: string;
}

/** Creates the session `id` in `store` and locks it. */
async function createLocked(store: SessionStore, id: string, where: SessionPlace): Promise<OpenedSession> {
  const sessionId = (await store.createSession({ id, ...where })).id;
  return { store, lock: await store.acquireLock(sessionId) };
}

/** Opens the default store with the new session `id` in it, locked; closed again on failure. */
async function openNewSession(id: string, where: SessionPlace): Promise<OpenedSession> {
  const store = await openDefaultSessionStore(where.cwd);
  try {
    return await createLocked(store, id, where);
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** True when the default store can be opened later: its file and the project's old one to import look fine. */
function canOpenDefaultLater(cwd: string): boolean {
  const legacy = projectSqlitePath(cwd);
  return canOpenLater(defaultSqlitePath()) && (!existsSync(legacy) || canOpenLater(legacy));
}

/**
 * True when opening the store at `path` can wait: the file starts with SQLite's header (or
 * is empty), or it does not exist yet and its folder (or the folder's parent) is writable.
 * Anything else is opened at once, so its error comes before any model request.
 */
function canOpenLater(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
    const folder = dirname(path);
    return writable(existsSync(folder) ? folder : dirname(folder));
  }
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    return read === 0 || header.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/** The loop's history from stored messages, made valid (unfinished tool calls closed, ids unique). */
export function toHistory(messages: readonly SDKMessage[], pending?: ReadonlySet<string>): HistoryEntry[] {
  return uniqueHistoryToolUseIds(
    conversationFromMessages(messages, pending ? { pending } : {}).map((message) =>
      message.type === "user"
        ? { role: "user", content: message.message.content }
        : { role: "assistant", message: message.message },
    ),
  );
}

/**
 * The bytes of the file the call will change, read as the tools read it: exactly the file its
 * permission check approved (else where the path leads now), through its verified folder, so a
 * folder swapped meanwhile never puts another file's content in the session. Null when it does
 * not exist; undefined when it cannot be read, is not a regular file, or the path changed (no
 * checkpoint: the tool fails too).
 */
async function contentOf(filePath: string, approvedPath: string | undefined): Promise<Buffer | null | undefined> {
  try {
    const realPath = approvedPath ?? (await realTargetOf(filePath));
    const handle = await openVerified(realPath, CHECKPOINT_READ, {
      accept: (kind) => {
        if (!kind.isFile()) throw new Error("not a regular file");
      },
    });
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return fsErrorCode(error) === "ENOENT" ? null : undefined;
  }
}

const CHECKPOINT_READ = { shown: "the file to checkpoint", toolName: "checkpoint", action: "read" } as const;

/** The agent a stored session was last handed to (its main thread's, not a subagent's). */
function lastHandoff(messages: readonly SDKMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.type === "system" && message.subtype === "handoff" && message.parent_tool_use_id === null)
      return message.to;
  }
  return undefined;
}

/**
 * Where the run of a session stopped when its process died (`continueRun`), from its last
 * top-level messages. A session whose run ended (its last message a result, a pause's too)
 * has nothing to continue: `resume_mismatch`.
 */
export function unfinishedRun(sessionId: string, messages: readonly SDKMessage[]): UnfinishedRun {
  const top = messages.filter(
    (message) =>
      message.type === "result" ||
      ((message.type === "user" || message.type === "assistant") && message.parent_tool_use_id === null),
  );
  const last = top.at(-1);
  if (last === undefined || last.type === "result") {
    throw new GyreError(
      "resume_mismatch",
      `The session ${sessionId} has no unfinished run to continue: ${last ? "its last run ended" : "it holds no prompt"}. Nothing was changed.`,
    );
  }
  const answerIndex = top.findLastIndex(
    (message) => message.type === "assistant" && message.message.content.length > 0,
  );
  const answer = top[answerIndex];
  if (answer?.type !== "assistant") return { at: "model" };
  const answered = new Set(
    top
      .slice(answerIndex + 1)
      .flatMap((message) =>
        message.type === "user" && typeof message.message.content !== "string"
          ? message.message.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))
          : [],
      ),
  );
  const calls = answer.message.content.filter((block) => block.type === "tool_use");
  const open = calls.filter((call) => !answered.has(call.id));
  if (open.length > 0) return { at: "tools", calls: open };
  if (calls.length === 0 && answerIndex === top.length - 1) return { at: "end_turn", answer: answer.message };
  return { at: "model" };
}

/** The `traceparent` of the session's last result, when it paused the run. */
function pausedTrace(messages: readonly SDKMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.type === "result")
      return message.terminal_reason === "requires_action" ? message.traceparent : undefined;
  }
  return undefined;
}
