import type { RecordData, RecordItem, ResponseRecords, SessionStore } from "../sessions/index.js";
import type { NumberedEvent } from "./stream-event.js";
import type { ResponseObject, StoredInputItem } from "./response-object.js";

/** A stored response: whose it is, the response object, and the input items of its request. */
export interface StoredResponse {
  /** The API key's owner id (`local` on an open loopback server). */
  owner: string;
  response: ResponseObject;
  inputItems: StoredInputItem[];
  /**
   * The session the loop runs in (its messages, for `gyre sessions`), deleted with the response.
   * Each message is in it as soon as the loop produced it, so a run cut short leaves what it did.
   */
  runSessionId: string;
}

/** Where responses live; `previous_response_id` chains are read through it. */
export interface ResponseStore {
  /**
   * Stores a version of the response: `first`, the response is new (stored with its input
   * items); else its new state, unless it was deleted meanwhile (it stays deleted).
   */
  save(record: StoredResponse, options?: { first?: boolean }): Promise<void>;
  get(id: string): Promise<StoredResponse | undefined>;
  /** Deletes the response, its events and its run's session; an unknown id is fine. */
  delete(id: string): Promise<void>;
  /** Keeps a background response's streaming events, to replay (`GET ?stream=true`). */
  appendEvents(id: string, events: readonly NumberedEvent[]): Promise<void>;
  /** The stored events numbered after `after`, in order. */
  events(id: string, after: number): Promise<NumberedEvent[]>;
}

/** The project of a response's sessions: one per owner, apart from the projects of `gyre run`. */
export function serveProject(owner: string): string {
  return `gyre-serve:${owner}`;
}

/**
 * Responses as records of the session store's database (SQLite, PostgreSQL or memory), so
 * that every instance sharing the store sees them; their runs are sessions of that store.
 */
export class RecordResponseStore implements ResponseStore {
  constructor(
    private readonly records: ResponseRecords,
    private readonly sessions: SessionStore,
  ) {}

  async save(record: StoredResponse, options: { first?: boolean } = {}): Promise<void> {
    const { owner, response, runSessionId } = record;
    const row = { id: response.id, owner, status: response.status, runSessionId, data: asData(response) };
    if (options.first) await this.records.create(row, record.inputItems as readonly RecordItem[]);
    else await this.records.update(row);
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const row = await this.records.get(id);
    if (!row) return undefined;
    return {
      owner: row.owner,
      response: row.data as unknown as ResponseObject,
      inputItems: (await this.records.inputItems(id)) as StoredInputItem[],
      runSessionId: row.runSessionId,
    };
  }

  async delete(id: string): Promise<void> {
    const row = await this.records.get(id);
    if (row) await this.sessions.deleteSession(row.runSessionId);
    await this.records.delete(id);
  }

  async appendEvents(id: string, events: readonly NumberedEvent[]): Promise<void> {
    if (events.length > 0) await this.records.appendEvents(id, events);
  }

  async events(id: string, after: number): Promise<NumberedEvent[]> {
    return (await this.records.events(id, after)) as NumberedEvent[];
  }
}

function asData(response: ResponseObject): RecordData {
  return response as unknown as RecordData;
}
