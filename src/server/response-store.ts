import { isGyreError } from "../errors/index.js";
import { recordMessage, recordMessages } from "./record-message.js";
import type { SessionStore } from "../sessions/index.js";
import type { NumberedEvent } from "./stream-event.js";
import type { ResponseObject, StoredInputItem } from "./response-object.js";

/** A stored response: whose it is, the response object, and the input items of its request. */
export interface StoredResponse {
  /** The API key's owner id (`local` on an open loopback server). */
  owner: string;
  response: ResponseObject;
  inputItems: StoredInputItem[];
  /**
   * The session the loop ran in (its messages, for `gyre sessions`), deleted with the response.
   * It is written whole when the run ends: a run the process did not finish has none.
   */
  runSessionId: string;
  /** A background response's streaming events, kept to replay (`GET ?stream=true`). */
  events?: NumberedEvent[];
}

/** Where responses live; `previous_response_id` chains are read through it. */
export interface ResponseStore {
  /** Stores a version of the response; `first`: no version exists yet (skips looking for one). */
  save(record: StoredResponse, options?: { first?: boolean }): Promise<void>;
  get(id: string): Promise<StoredResponse | undefined>;
  /** Deletes the response and its run's session; an unknown id is fine. */
  delete(id: string): Promise<void>;
}

const RESPONSE_ID = /^resp_[0-9a-f]{32}$/;

/** The project of a response's sessions: one per owner, apart from the projects of `gyre run`. */
export function serveProject(owner: string): string {
  return `gyre-serve:${owner}`;
}

/**
 * Responses in a {@link SessionStore} (SQLite, PostgreSQL or memory), so that every instance
 * sharing the store sees them: a response is a session of its own id whose messages are
 * versions of its record (a synthetic user message carrying it); the latest one counts.
 */
export class SessionResponseStore implements ResponseStore {
  constructor(private readonly sessions: SessionStore) {}

  async save(record: StoredResponse, options: { first?: boolean } = {}): Promise<void> {
    const id = record.response.id;
    const message = recordMessage(id, { gyre_response: record });
    // A new version of a response that exists is one append; a new response is created with
    // its first version in one transaction.
    if (!options.first)
      try {
        return await this.sessions.append(id, message);
      } catch (error) {
        if (!isGyreError(error, "session_not_found")) throw error;
      }
    const session = { id, cwd: "/", project: serveProject(record.owner), title: id, model: record.response.model };
    await this.sessions.createSession(session, [message]);
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    // Only a response's own session holds a record (not its run's, nor any other session).
    if (!RESPONSE_ID.test(id)) return undefined;
    const messages = (await recordMessages(this.sessions, id)) ?? [];
    for (const message of [...messages].reverse()) {
      if (message.type !== "user" || !message.isSynthetic) continue;
      const stored = (message.tool_use_result as { gyre_response?: StoredResponse } | undefined)?.gyre_response;
      if (stored) return stored;
    }
    return undefined;
  }

  async delete(id: string): Promise<void> {
    const stored = await this.get(id);
    if (stored) await this.sessions.deleteSession(stored.runSessionId);
    await this.sessions.deleteSession(id);
  }
}
