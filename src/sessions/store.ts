import type { SDKMessage } from "../protocol/index.js";
import type { ServerRecords } from "./records.js";
import type { CreateSessionInput, FileCheckpoint, SessionInfo, StoredMessage } from "./types.js";

export interface ListSessionsFilter {
  /** Only sessions run in this directory (when no `project` is given). */
  cwd?: string;
  /** Only sessions of this project (see `CreateSessionInput.project`). */
  project?: string;
  limit?: number;
  /**
   * Subagents' sessions (see `SessionInfo.parentToolUseId`): left out (default: a project's
   * sessions are the ones a person started), listed too, or the only ones listed.
   */
  subagents?: "exclude" | "include" | "only";
  /** Only sessions whose `parentId` is this one (with `subagents: "only"`: the subagents it ran). */
  parentId?: string;
}

export interface UpToOptions {
  /** Only messages up to and including the one with this uuid. */
  upTo?: string;
}

/** How `forkSession` copies a session. */
export interface ForkOptions extends UpToOptions {
  /** The fork's id (default a new UUID). */
  id?: string;
  /** The fork's title (default "<source title> (fork)"). */
  title?: string;
}

/** Exclusive right to run the loop on a session, until `release()`. */
export interface SessionLock {
  readonly sessionId: string;
  readonly owner: string;
  /** Idempotent. */
  release(): Promise<void>;
}

/**
 * Where sessions live. Every SDKMessage the loop produces is `append`ed as it is produced
 * (one transaction each), raw and as derived messages and parts (`applyMessage`), so a
 * crash loses nothing that was emitted. Implementations: memory, SQLite, PostgreSQL; all
 * pass one contract suite.
 *
 * Errors: unknown session → `session_not_found`; unknown `upTo`/message uuid →
 * `session_message_not_found`; lock held elsewhere → `session_busy`; storage failures and
 * unreadable data → `session_store_error`.
 */
export interface SessionStore {
  /**
   * `gyre serve`'s responses and conversations, kept in the same database as the sessions their
   * runs write (Gyre's memory, SQLite and PostgreSQL stores all have them). `createServer`
   * needs a store that has them.
   */
  readonly records?: ServerRecords;
  /**
   * Creates a session; an `id` that already exists is a `session_store_error`. `messages`, if
   * given, are appended in the same transaction: a session written whole (a finished run's
   * transcript) costs one commit, and nobody sees it half-written.
   */
  createSession(input: CreateSessionInput, messages?: readonly SDKMessage[]): Promise<SessionInfo>;
  getSession(id: string): Promise<SessionInfo | undefined>;
  /** Most recently updated first. */
  listSessions(filter?: ListSessionsFilter): Promise<SessionInfo[]>;
  /** The most recently updated session of `project` (for "continue"); never a subagent's. */
  latestSession(project: string): Promise<SessionInfo | undefined>;
  /**
   * Stores `message` and its derived rows in one transaction. Appending a uuid the session
   * already holds does nothing, so a retried append is safe. `stream_event`s are transient
   * and not stored.
   */
  append(sessionId: string, message: SDKMessage): Promise<void>;
  /** The stored SDKMessages in append order. */
  getSessionMessages(sessionId: string, options?: UpToOptions): Promise<SDKMessage[]>;
  /** The derived messages with their parts, in order. */
  getMessages(sessionId: string): Promise<StoredMessage[]>;
  renameSession(id: string, title: string): Promise<SessionInfo>;
  /**
   * Deletes the session with its messages, parts and checkpoints, and the sessions of the
   * subagents it ran (at any depth; forks stay); unknown ids are fine.
   */
  deleteSession(id: string): Promise<void>;
  /**
   * A new session holding a copy of the history (up to `upTo`), with `session_id`
   * rewritten to the new id and derived rows rebuilt by the same reducer. Its id is
   * `options.id` or a new UUID; its title `options.title` or "<source title> (fork)".
   */
  forkSession(id: string, options?: ForkOptions): Promise<SessionInfo>;
  /** Exclusive across processes (and, for PostgreSQL, server instances). */
  acquireLock(sessionId: string, owner?: string): Promise<SessionLock>;
  /**
   * Remembers a file's content before `messageUuid`'s turn changed it. Only the first
   * checkpoint per message and file is kept: that is the content before the turn.
   */
  saveCheckpoint(sessionId: string, messageUuid: string, filePath: string, contentBefore: Buffer | null): Promise<void>;
  /**
   * Checkpoints of `fromMessageUuid` and every later message, oldest first. To rewind files
   * to before that message, restore each file's first checkpoint.
   */
  getCheckpoints(sessionId: string, fromMessageUuid: string): Promise<FileCheckpoint[]>;
  close(): Promise<void>;
}

/** Each file's content before the first checkpointed change, from `getCheckpoints` output. */
export function filesToRestore(checkpoints: readonly FileCheckpoint[]): Map<string, Buffer | null> {
  const files = new Map<string, Buffer | null>();
  for (const checkpoint of checkpoints) {
    if (!files.has(checkpoint.filePath)) files.set(checkpoint.filePath, checkpoint.contentBefore);
  }
  return files;
}
