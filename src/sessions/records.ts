import { GyreError } from "../errors/index.js";

/**
 * JSON a record keeps as it was given (the server's response, conversation, item and event
 * objects): stored whole and read back unchanged. The store reads none of its fields, except
 * an item's `id` and an event's `sequence_number`.
 */
export type RecordData = Record<string, unknown>;

/** A response's or a conversation's item: its own id and the rest of it. */
export type RecordItem = RecordData & { id: string };

/** A streaming event of a response, numbered from 0 in the order it was sent. */
export type RecordEvent = RecordData & { sequence_number: number };

/** A response of `gyre serve` as stored: a few columns, and the response object whole. */
export interface ResponseRecord {
  /** The response's id (`resp_…`). */
  id: string;
  /** Whose it is: an API key's owner id. */
  owner: string;
  /** `queued`, `in_progress`, `completed` …: a column of its own, so that unfinished runs can be found. */
  status: string;
  /** The session its run keeps the loop's messages in. */
  runSessionId: string;
  /** The response object. */
  data: RecordData;
}

/** A conversation as stored: whose it is, and the conversation object whole. */
export interface ConversationRecord {
  /** The conversation's id (`conv_…`). */
  id: string;
  /** Whose it is: an API key's owner id. */
  owner: string;
  /** The conversation object. */
  data: RecordData;
}

/**
 * Responses, their input items and streaming events. Every method is one transaction; writes
 * to a response that is not stored (deleted meanwhile, on any instance) change nothing and
 * resolve to false.
 */
export interface ResponseRecords {
  /** A new response with its input items; an id that exists is a `session_store_error`. */
  create(record: ResponseRecord, inputItems: readonly RecordItem[]): Promise<void>;
  /** The stored response's new status and object. */
  update(record: ResponseRecord): Promise<boolean>;
  /** The stored response, or undefined. */
  get(id: string): Promise<ResponseRecord | undefined>;
  /** Its input items in order (none for an unknown id). */
  inputItems(id: string): Promise<RecordItem[]>;
  /** Adds events; one whose `sequence_number` is stored already is left as it is, so a retried write is safe. */
  appendEvents(id: string, events: readonly RecordEvent[]): Promise<boolean>;
  /** Its events numbered after `after` (default -1: all), in order. */
  events(id: string, after?: number): Promise<RecordEvent[]>;
  /** Deletes the response with its items and events (not its run's session); an unknown id is fine. */
  delete(id: string): Promise<void>;
}

/**
 * Conversations and their items, kept in the order they were added. Every method is one
 * transaction, so writers on several instances add their items without losing each other's;
 * a write to a conversation that is not stored resolves to false.
 */
export interface ConversationRecords {
  /** A new conversation with its first items; an id that exists is a `session_store_error`. */
  create(record: ConversationRecord, items: readonly RecordItem[]): Promise<void>;
  /** The stored conversation with its items in order, read as of one moment; or undefined. */
  get(id: string): Promise<{ record: ConversationRecord; items: RecordItem[] } | undefined>;
  /** Adds items after the ones it has. */
  addItems(id: string, items: readonly RecordItem[]): Promise<boolean>;
  /** Removes the items with this id. */
  removeItem(id: string, itemId: string): Promise<boolean>;
  /** The stored conversation's new object (its items stay). */
  update(record: ConversationRecord): Promise<boolean>;
  /** Deletes the conversation with its items; an unknown id is fine. */
  delete(id: string): Promise<void>;
}

/**
 * What `gyre serve` keeps besides sessions, in tables of their own in the same database: a
 * response's run is a session, the response itself is a record. Errors as the session store's
 * (`session_store_error`).
 */
export interface ServerRecords {
  /** Responses, their input items and events. */
  readonly responses: ResponseRecords;
  /** Conversations and their items. */
  readonly conversations: ConversationRecords;
}

/** A record created with an id that is taken: as the SQL stores' primary keys refuse it. */
export function exists(kind: string, id: string): GyreError {
  return new GyreError("session_store_error", `${kind} ${id} already exists`);
}
