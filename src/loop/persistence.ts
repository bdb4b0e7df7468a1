import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { GyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import {
  conversationFromMessages,
  FILE_EDIT_TOOLS,
  openSqliteSessionStore,
  type SessionLock,
  type SessionStore,
} from "../sessions/index.js";
import type { AnyTool } from "../tools/index.js";
import type { QueryOptions } from "./options.js";
import type { HistoryEntry } from "./to-prompt.js";

/**
 * A run's link to its session store: which session it writes, the history it resumes
 * from, the lock that keeps other loops out, and file checkpoints before edits.
 * With `persistSession: false` every method is a no-op and the history is empty.
 */
export class Persistence {
  /** tool_use id → uuid of the assistant message that made the call (for checkpoints). */
  readonly #callers = new Map<string, string>();

  private constructor(
    readonly sessionId: string,
    readonly history: HistoryEntry[],
    readonly store: SessionStore | undefined,
    private readonly lock: SessionLock | undefined,
    private readonly ownsStore: boolean,
  ) {}

  /**
   * Opens the store and the session the options ask for: a new one (`proposedId`),
   * `resume`, `continue` (latest in `cwd`), forked with `forkSession` or at
   * `resumeSessionAt` (which always continues in a fork, so the original keeps its later
   * messages). Takes the session's lock; a loop already running on it is `session_busy`.
   */
  static async open(options: QueryOptions, cwd: string, proposedId: string): Promise<Persistence> {
    const wantsResume = options.resume !== undefined || options.continue === true;
    if (options.persistSession === false && !options.sessionStore) {
      if (wantsResume)
        throw new GyreError(
          "config_error",
          "resume and continue need a session store; persistSession is false",
        );
      return new Persistence(proposedId, [], undefined, undefined, false);
    }
    const ownsStore = !options.sessionStore;
    const store = options.sessionStore ?? openSqliteSessionStore({ cwd });
    let lock: SessionLock | undefined;
    try {
      const sourceId =
        options.resume ?? (options.continue ? (await store.latestSession(cwd))?.id : undefined);
      let sessionId: string;
      if (sourceId === undefined) {
        if (options.resumeSessionAt !== undefined)
          throw new GyreError("config_error", "resumeSessionAt needs resume or continue");
        sessionId = (await store.createSession({ id: proposedId, cwd })).id;
      } else if (options.forkSession || options.resumeSessionAt !== undefined) {
        const fork = await store.forkSession(sourceId, {
          ...(options.resumeSessionAt !== undefined ? { upTo: options.resumeSessionAt } : {}),
        });
        sessionId = fork.id;
      } else {
        sessionId = sourceId;
      }
      lock = await store.acquireLock(sessionId);
      const history = sourceId === undefined ? [] : toHistory(await store.getSessionMessages(sessionId));
      return new Persistence(sessionId, history, store, lock, ownsStore);
    } catch (error) {
      await lock?.release();
      if (ownsStore) await store.close();
      throw error;
    }
  }

  /** Stores a message (stream events are skipped) before it reaches the caller. */
  async record(message: SDKMessage): Promise<void> {
    if (!this.store || message.type === "stream_event") return;
    if (message.type === "assistant") {
      for (const block of message.message.content)
        if (block.type === "tool_use") this.#callers.set(block.id, message.uuid);
    }
    await this.store.append(this.sessionId, message);
  }

  /**
   * File-editing tools (by {@link FILE_EDIT_TOOLS}) get a checkpoint of the file's content
   * before they run, under the assistant message that made the call; other tools pass.
   */
  withCheckpoints(tool: AnyTool): AnyTool {
    const field = FILE_EDIT_TOOLS[tool.name];
    const store = this.store;
    if (!store || field === undefined) return tool;
    return {
      ...tool,
      execute: async (input, context) => {
        const path = (input as Record<string, unknown>)[field];
        const caller = this.#callers.get(context.toolUseId);
        if (typeof path === "string" && caller !== undefined) {
          const filePath = resolve(context.cwd, path);
          const before = await contentOf(filePath);
          if (before !== undefined) await store.saveCheckpoint(this.sessionId, caller, filePath, before);
        }
        return tool.execute(input, context);
      },
    };
  }

  /** Releases the lock and closes a store this run opened. */
  async close(): Promise<void> {
    try {
      await this.lock?.release();
    } finally {
      if (this.ownsStore) await this.store?.close();
    }
  }
}

/** The loop's history from stored messages, made valid (unfinished tool calls closed). */
export function toHistory(messages: readonly SDKMessage[]): HistoryEntry[] {
  return conversationFromMessages(messages).map((message) =>
    message.type === "user"
      ? { role: "user", content: message.message.content }
      : { role: "assistant", message: message.message },
  );
}

/** The file's bytes; null when it does not exist; undefined when unreadable (no checkpoint: the tool will fail too). */
async function contentOf(filePath: string): Promise<Buffer | null | undefined> {
  try {
    return await readFile(filePath);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}
