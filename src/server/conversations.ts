import type { ConversationRecords, RecordItem } from "../sessions/index.js";
import { RequestError } from "./errors.js";
import type { OutputItem, StoredInputItem } from "./response-object.js";

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

/**
 * Conversations as records of the session store's database (SQLite, PostgreSQL or memory),
 * shared by every instance on the store: each change (items added, an item removed, new
 * metadata) is one transaction of its own, so concurrent writers each add theirs and none is lost.
 */
export class RecordConversationStore implements ConversationStore {
  constructor(private readonly records: ConversationRecords) {}

  async create(owner: string, conversation: ConversationObject, items: readonly ConversationItem[]): Promise<void> {
    await this.records.create(
      { id: conversation.id, owner, data: { ...conversation } },
      items as readonly RecordItem[],
    );
  }

  async get(id: string): Promise<StoredConversation | undefined> {
    const stored = await this.records.get(id);
    if (!stored) return undefined;
    const conversation = stored.record.data as unknown as ConversationObject;
    return { owner: stored.record.owner, conversation, items: stored.items as ConversationItem[] };
  }

  addItems(id: string, items: readonly ConversationItem[]): Promise<boolean> {
    return this.records.addItems(id, items as readonly RecordItem[]);
  }

  removeItem(id: string, itemId: string): Promise<boolean> {
    return this.records.removeItem(id, itemId);
  }

  async setMetadata(id: string, metadata: Record<string, string>): Promise<boolean> {
    const stored = await this.records.get(id);
    if (!stored) return false;
    return this.records.update({ ...stored.record, data: { ...stored.record.data, metadata } });
  }

  async delete(id: string): Promise<void> {
    await this.records.delete(id);
  }
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
