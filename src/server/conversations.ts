import type { SDKMessage } from "../protocol/index.js";
import { isGyreError } from "../errors/index.js";
import { recordMessage, recordMessages } from "./record-message.js";
import type { SessionStore } from "../sessions/index.js";
import { RequestError } from "./errors.js";
import type { OutputItem, StoredInputItem } from "./response-object.js";
import { serveProject } from "./response-store.js";

/** The conversation object of OpenAI's Conversations API. */
export interface ConversationObject {
  id: string;
  object: "conversation";
  created_at: number;
  metadata: Record<string, string>;
}

/** An item of a conversation: an input item (messages with their content as parts) or a response's output item. */
export type ConversationItem = StoredInputItem | OutputItem;

/** A stored conversation: whose it is, the object, and its items oldest first. */
export interface StoredConversation {
  /** The API key's owner id (`local` on an open loopback server). */
  owner: string;
  conversation: ConversationObject;
  items: ConversationItem[];
}

/**
 * Where conversations live. Every change is a write of its own (items added, an item removed,
 * new metadata), so that writers on several instances never overwrite each other's items.
 * Writing to a conversation that does not exist (deleted meanwhile) resolves to false.
 */
export interface ConversationStore {
  create(owner: string, conversation: ConversationObject, items: readonly ConversationItem[]): Promise<void>;
  get(id: string): Promise<StoredConversation | undefined>;
  addItems(id: string, items: readonly ConversationItem[]): Promise<boolean>;
  removeItem(id: string, itemId: string): Promise<boolean>;
  setMetadata(id: string, metadata: Record<string, string>): Promise<boolean>;
  /** Deletes the conversation (not the responses made in it); an unknown id is fine. */
  delete(id: string): Promise<void>;
}

/** One change of a conversation, as one stored message. */
type Change =
  | { created: { owner: string; conversation: ConversationObject } }
  | { items: ConversationItem[] }
  | { removed: string }
  | { metadata: Record<string, string> };

const CONVERSATION_ID = /^conv_[0-9a-f]{32}$/;

/**
 * Conversations in a {@link SessionStore} (SQLite, PostgreSQL or memory), shared by every
 * instance on the store: a conversation is a session of its own id whose messages are its
 * changes (synthetic user messages carrying them), read back in append order. An append is one
 * transaction that adds a row, so concurrent writers each add theirs and none is lost.
 */
export class SessionConversationStore implements ConversationStore {
  constructor(private readonly sessions: SessionStore) {}

  async create(owner: string, conversation: ConversationObject, items: readonly ConversationItem[]): Promise<void> {
    const { id } = conversation;
    const messages = [this.#message(id, { created: { owner, conversation } })];
    if (items.length > 0) messages.push(this.#message(id, { items: [...items] }));
    await this.sessions.createSession(
      { id, cwd: "/", project: serveProject(owner), title: id, model: "conversation" },
      messages,
    );
  }

  async get(id: string): Promise<StoredConversation | undefined> {
    // Only a conversation's own session holds one (not a response's, nor any other session).
    if (!CONVERSATION_ID.test(id)) return undefined;
    let stored: StoredConversation | undefined;
    for (const message of (await recordMessages(this.sessions, id)) ?? []) {
      const change = changeOf(message);
      if (!change) continue;
      if ("created" in change) stored = { ...change.created, items: [] };
      else if (!stored) continue;
      else if ("items" in change) stored.items.push(...change.items);
      else if ("removed" in change) stored.items = stored.items.filter((item) => item.id !== change.removed);
      else stored.conversation = { ...stored.conversation, metadata: change.metadata };
    }
    return stored;
  }

  addItems(id: string, items: readonly ConversationItem[]): Promise<boolean> {
    return this.#append(id, { items: [...items] });
  }

  removeItem(id: string, itemId: string): Promise<boolean> {
    return this.#append(id, { removed: itemId });
  }

  setMetadata(id: string, metadata: Record<string, string>): Promise<boolean> {
    return this.#append(id, { metadata });
  }

  async delete(id: string): Promise<void> {
    await this.sessions.deleteSession(id);
  }

  async #append(id: string, change: Change): Promise<boolean> {
    try {
      await this.sessions.append(id, this.#message(id, change));
      return true;
    } catch (error) {
      if (isGyreError(error, "session_not_found")) return false;
      throw error;
    }
  }

  #message(id: string, change: Change): SDKMessage {
    return recordMessage(id, { gyre_conversation: change });
  }
}

function changeOf(message: SDKMessage): Change | undefined {
  if (message.type !== "user" || !message.isSynthetic) return undefined;
  return (message.tool_use_result as { gyre_conversation?: Change } | undefined)?.gyre_conversation;
}

/**
 * An input item as a conversation keeps it, as OpenAI lists it: a message's text content as a
 * part (`input_text`, or `output_text` for the assistant's) and its status `completed`.
 */
export function asConversationItem(item: StoredInputItem): ConversationItem {
  if (item.type !== "message") return item;
  const content =
    typeof item.content !== "string"
      ? item.content
      : item.role === "assistant"
        ? [{ type: "output_text" as const, text: item.content, annotations: [], logprobs: [] }]
        : [{ type: "input_text" as const, text: item.content }];
  return { ...item, content, status: item.status ?? "completed" } as ConversationItem;
}

/**
 * The items a request adds to a conversation (`adds(index)`; not references to its items) have
 * ids new to it and to each other, else a 400 on the item: one taking an id the conversation
 * has would be run, yet never kept in it, and a repeated id names two items.
 */
export function checkNewItemIds(
  items: readonly { id: string }[],
  known: ReadonlySet<string>,
  adds: (index: number) => boolean,
  param: string,
): void {
  const seen = new Set<string>();
  for (const [index, { id }] of items.entries()) {
    if (!adds(index)) continue;
    if (known.has(id))
      throw new RequestError(
        400,
        "Item already in conversation.",
        "item_already_in_conversation",
        `${param}[${index}].id`,
      );
    if (seen.has(id))
      throw new RequestError(400, `Duplicate item found with id ${id}.`, "invalid_input", `${param}[${index}].id`);
    seen.add(id);
  }
}

/** A conversation that does not exist, or is another key's (which does not exist for this one). */
export function conversationNotFound(id: string, param: string): RequestError {
  return new RequestError(404, `Conversation with id '${id}' not found.`, "not_found", param);
}
