import type { SDKMessage } from "../protocol/index.js";
import { applyMessage, storedUuid } from "./derive.js";
import { createIdGenerator, type IdGenerator } from "./ids.js";
import type { Part } from "./parts.js";
import { currentHost, describeHolder } from "./lock-liveness.js";
import { MemoryServerRecords } from "./memory-records.js";
import type { ServerRecords } from "./records.js";
import { matchesFilter, withSubagentSessions } from "./session-filter.js";
import {
  assembleMessages,
  cutAt,
  forkInput,
  lockOwner,
  messageNotFound,
  newSessionRecord,
  type SessionRecord,
  sessionBusy,
  sessionExists,
  sessionNotFound,
  toSessionInfo,
  withSessionId,
} from "./session-record.js";
import type { ForkOptions, ListSessionsFilter, SessionLock, SessionStore, UpToOptions } from "./store.js";
import type { CreateSessionInput, FileCheckpoint, MessageInfo, SessionInfo, StoredMessage } from "./types.js";

export interface StoreClockOptions {
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Ids for sessions, messages and parts (default sortable ULID-shaped ids). */
  newId?: IdGenerator;
}

interface MemorySession {
  record: SessionRecord;
  raw: SDKMessage[];
  uuids: Set<string>;
  messages: Map<string, MessageInfo>;
  parts: Map<string, Part>;
  checkpoints: Array<FileCheckpoint & { seq: number }>;
}

/**
 * A session store in process memory, for tests and throwaway agents. Same contract as the
 * database stores; returned values are copies, so callers cannot change what is stored.
 */
export class MemorySessionStore implements SessionStore {
  /** `gyre serve`'s responses and conversations, in memory too. */
  readonly records: ServerRecords = new MemoryServerRecords();
  readonly #sessions = new Map<string, MemorySession>();
  readonly #locks = new Map<string, string>();
  readonly #now: () => number;
  readonly #newId: IdGenerator;

  constructor(options: StoreClockOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? createIdGenerator({ now: this.#now });
  }

  async createSession(input: CreateSessionInput, messages: readonly SDKMessage[] = []): Promise<SessionInfo> {
    const record = newSessionRecord(input, this.#now());
    if (this.#sessions.has(record.id)) throw sessionExists(record.id);
    this.#sessions.set(record.id, {
      record,
      raw: [],
      uuids: new Set(),
      messages: new Map(),
      parts: new Map(),
      checkpoints: [],
    });
    // Nothing awaits between the appends: no other caller sees the session half-written.
    for (const message of messages) this.#appendNow(record.id, message);
    return toSessionInfo(this.#require(record.id).record);
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    const session = this.#sessions.get(id);
    return session ? toSessionInfo(session.record) : undefined;
  }

  async listSessions(filter: ListSessionsFilter = {}): Promise<SessionInfo[]> {
    const records = [...this.#sessions.values()]
      .map((session) => session.record)
      .filter((record) => matchesFilter(record, filter))
      .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return records.slice(0, filter.limit ?? records.length).map(toSessionInfo);
  }

  async latestSession(project: string): Promise<SessionInfo | undefined> {
    return (await this.listSessions({ project, limit: 1 }))[0];
  }

  async append(sessionId: string, message: SDKMessage): Promise<void> {
    this.#appendNow(sessionId, message);
  }

  #appendNow(sessionId: string, message: SDKMessage): void {
    const session = this.#require(sessionId);
    if (message.type === "stream_event" || session.uuids.has(storedUuid(message))) return;
    const now = this.#now();
    const result = applyMessage(session.record.state, message, { sessionId, now, newId: this.#newId });
    session.raw.push(structuredClone(message));
    session.uuids.add(storedUuid(message));
    for (const row of result.messages) session.messages.set(row.id, structuredClone(row));
    for (const part of result.parts) session.parts.set(part.id, structuredClone(part));
    session.record = { ...session.record, state: result.state, updatedAt: now };
  }

  async getSessionMessages(sessionId: string, options: UpToOptions = {}): Promise<SDKMessage[]> {
    return structuredClone(cutAt(this.#require(sessionId).raw, sessionId, options.upTo));
  }

  async getMessages(sessionId: string): Promise<StoredMessage[]> {
    const session = this.#require(sessionId);
    return structuredClone(assembleMessages([...session.messages.values()], [...session.parts.values()]));
  }

  async renameSession(id: string, title: string): Promise<SessionInfo> {
    const session = this.#require(id);
    session.record = { ...session.record, title, updatedAt: this.#now() };
    return toSessionInfo(session.record);
  }

  async deleteSession(id: string): Promise<void> {
    const subagentsOf = (parent: string) =>
      [...this.#sessions.values()]
        .filter(({ record }) => record.parentId === parent && record.parentToolUseId !== null)
        .map(({ record }) => record.id);
    for (const session of withSubagentSessions(id, subagentsOf)) this.#sessions.delete(session);
  }

  async forkSession(id: string, options: ForkOptions = {}): Promise<SessionInfo> {
    const source = this.#require(id);
    const history = cutAt(source.raw, id, options.upTo);
    const fork = await this.createSession(forkInput(source.record, options, history.at(-1)?.uuid));
    for (const message of history) await this.append(fork.id, withSessionId(message, fork.id));
    return toSessionInfo(this.#require(fork.id).record);
  }

  async acquireLock(sessionId: string, owner?: string): Promise<SessionLock> {
    this.#require(sessionId);
    const holder = this.#locks.get(sessionId);
    if (holder !== undefined)
      throw sessionBusy(sessionId, describeHolder({ owner: holder, pid: process.pid, host: currentHost() }));
    const label = lockOwner(owner);
    this.#locks.set(sessionId, label);
    let released = false;
    return {
      sessionId,
      owner: label,
      release: async () => {
        if (released) return;
        released = true;
        this.#locks.delete(sessionId);
      },
    };
  }

  async saveCheckpoint(
    sessionId: string,
    messageUuid: string,
    filePath: string,
    contentBefore: Buffer | null,
  ): Promise<void> {
    const session = this.#require(sessionId);
    const exists = session.checkpoints.some((c) => c.messageUuid === messageUuid && c.filePath === filePath);
    if (exists) return;
    const index = session.raw.findIndex((message) => message.uuid === messageUuid);
    const seq = index >= 0 ? index + 1 : session.raw.length + 1;
    const copy = contentBefore === null ? null : Buffer.from(contentBefore);
    session.checkpoints.push({ messageUuid, filePath, contentBefore: copy, createdAt: this.#now(), seq });
  }

  async getCheckpoints(sessionId: string, fromMessageUuid: string): Promise<FileCheckpoint[]> {
    const session = this.#require(sessionId);
    const index = session.raw.findIndex((message) => message.uuid === fromMessageUuid);
    const own = session.checkpoints.filter((c) => c.messageUuid === fromMessageUuid).map((c) => c.seq);
    const from = index >= 0 ? index + 1 : own.length > 0 ? Math.min(...own) : undefined;
    if (from === undefined) throw messageNotFound(sessionId, fromMessageUuid);
    return session.checkpoints
      .filter((c) => c.seq >= from)
      .sort((a, b) => a.seq - b.seq)
      .map(({ seq: _seq, contentBefore, ...rest }) => ({
        ...rest,
        contentBefore: contentBefore === null ? null : Buffer.from(contentBefore),
      }));
  }

  async close(): Promise<void> {}

  #require(sessionId: string): MemorySession {
    const session = this.#sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }
}
