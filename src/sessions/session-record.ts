import { randomUUID } from "node:crypto";
import { GyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { DeriveState, derivedSessionFields, initialDeriveState } from "./derive-state.js";
import { parseStored } from "./json.js";
import type { Part } from "./parts.js";
import type { ForkOptions } from "./store.js";
import type { CreateSessionInput, MessageInfo, SessionInfo, StoredMessage } from "./types.js";

/** What every store keeps per session: a few columns plus the reducer's state. */
export interface SessionRecord {
  id: string;
  cwd: string;
  /** What listing and `continue` go by: the project the session belongs to. */
  project: string;
  /** The explicit title (`renameSession` or `createSession`), not the derived one. */
  title: string | null;
  createdAt: number;
  updatedAt: number;
  parentId: string | null;
  parentToolUseId: string | null;
  forkedFromMessage: string | null;
  state: DeriveState;
}

export function newSessionRecord(input: CreateSessionInput, now: number): SessionRecord {
  return {
    id: input.id ?? randomUUID(),
    cwd: input.cwd,
    project: input.project ?? input.cwd,
    title: input.title ?? null,
    createdAt: now,
    updatedAt: now,
    parentId: input.parentId ?? null,
    parentToolUseId: input.parentToolUseId ?? null,
    forkedFromMessage: input.forkedFromMessage ?? null,
    state: initialDeriveState(input.model ?? null),
  };
}

/** A new session's column values, in the order both SQL stores insert them (`stateText`: its state as JSON). */
export function sessionRowValues(
  record: SessionRecord,
  stateText = JSON.stringify(record.state),
): Array<string | number | null> {
  return [
    record.id,
    record.cwd,
    record.title,
    record.createdAt,
    record.updatedAt,
    record.parentId,
    record.forkedFromMessage,
    stateText,
    record.project,
    record.parentToolUseId,
  ];
}

/** A session row as either SQL store reads it (`pg` returns `bigint` columns as strings). */
export interface SessionRowLike {
  id: string;
  cwd: string;
  project: string;
  title: string | null;
  created_at: number | string;
  updated_at: number | string;
  parent_id: string | null;
  parent_tool_use_id: string | null;
  forked_from_message: string | null;
}

/** A session row as a record, with the reducer state the caller decoded from its `state`. */
export function sessionRecordFromRow(row: SessionRowLike, state: DeriveState): SessionRecord {
  return {
    id: row.id,
    cwd: row.cwd,
    project: row.project,
    title: row.title,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    parentId: row.parent_id,
    parentToolUseId: row.parent_tool_use_id,
    forkedFromMessage: row.forked_from_message,
    state,
  };
}

/** The reducer state as stored; anything else is a `session_store_error` naming `where`. */
export function decodeState(text: unknown, where: string): DeriveState {
  const parsed = DeriveState.safeParse(parseStored(text, where));
  if (!parsed.success) {
    throw new GyreError("session_store_error", `Unreadable session state in ${where}: ${parsed.error.message}`);
  }
  return parsed.data;
}

export function toSessionInfo(record: SessionRecord): SessionInfo {
  const { derivedTitle, ...derived } = derivedSessionFields(record.state);
  return {
    id: record.id,
    cwd: record.cwd,
    project: record.project,
    title: record.title ?? derivedTitle,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    parentId: record.parentId,
    parentToolUseId: record.parentToolUseId,
    forkedFromMessage: record.forkedFromMessage,
    ...derived,
  };
}

/** Joins message rows with their parts; both lists are in creation order. */
export function assembleMessages(messages: MessageInfo[], parts: Part[]): StoredMessage[] {
  const byMessage = new Map<string, Part[]>();
  for (const part of parts) {
    const list = byMessage.get(part.messageId) ?? [];
    list.push(part);
    byMessage.set(part.messageId, list);
  }
  return messages.map((message) => ({ ...message, parts: byMessage.get(message.id) ?? [] }));
}

/** What the reducer returned for one stored message, in append order. */
export interface DerivedRows {
  messages: readonly MessageInfo[];
  parts: readonly Part[];
}

/**
 * Replays per-message reducer output into the derived messages: rows in append order, each
 * part where it first appeared with the content of its last version (as an upsert by id
 * into a table ordered by first insertion would hold).
 */
export function replayDerived(appends: Iterable<DerivedRows>): StoredMessage[] {
  const messages: MessageInfo[] = [];
  const parts = new Map<string, Part>();
  for (const append of appends) {
    messages.push(...append.messages);
    for (const part of append.parts) parts.set(part.id, part);
  }
  return assembleMessages(messages, [...parts.values()]);
}

/**
 * The session a fork of `source` creates: the source's cwd, project and model, a new UUID
 * (as every session gets) and its own title, "<source title> (fork)" unless one is given.
 */
export function forkInput(
  source: SessionRecord,
  options: ForkOptions,
  lastUuid: string | undefined,
): CreateSessionInput {
  const title = options.title ?? forkTitle(toSessionInfo(source).title);
  return {
    id: options.id ?? randomUUID(),
    cwd: source.cwd,
    project: source.project,
    ...(title !== null ? { title } : {}),
    ...(source.state.model !== null ? { model: source.state.model } : {}),
    parentId: source.id,
    ...(lastUuid !== undefined ? { forkedFromMessage: lastUuid } : {}),
  };
}

function forkTitle(sourceTitle: string | null): string | null {
  return sourceTitle === null ? null : `${sourceTitle} (fork)`;
}

/** The message rewritten into another session, for forks. */
export function withSessionId(message: SDKMessage, sessionId: string): SDKMessage {
  return { ...message, session_id: sessionId };
}

/** Cuts `messages` after the one with uuid `upTo` (inclusive); unknown uuids are an error. */
export function cutAt<T extends { uuid?: string }>(messages: T[], sessionId: string, upTo: string | undefined): T[] {
  if (upTo === undefined) return messages;
  const index = messages.findIndex((message) => message.uuid === upTo);
  if (index < 0) throw messageNotFound(sessionId, upTo);
  return messages.slice(0, index + 1);
}

export function sessionNotFound(sessionId: string): GyreError {
  return new GyreError("session_not_found", `No session with id ${sessionId}`);
}

export function messageNotFound(sessionId: string, uuid: string): GyreError {
  return new GyreError("session_message_not_found", `Session ${sessionId} has no message with uuid ${uuid}`);
}

export function sessionExists(sessionId: string): GyreError {
  return new GyreError("session_store_error", `A session with id ${sessionId} already exists`);
}

export function sessionBusy(sessionId: string, holder: string): GyreError {
  return new GyreError("session_busy", `Session ${sessionId} is in use by ${holder}`);
}

/** A non-empty owner label for locks: the caller's, or this process. */
export function lockOwner(owner: string | undefined): string {
  return owner ?? `pid ${process.pid}`;
}
