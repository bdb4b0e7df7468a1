import {
  exists,
  type ConversationRecord,
  type ConversationRecords,
  type RecordEvent,
  type RecordItem,
  type ResponseRecord,
  type ResponseRecords,
  type ServerRecords,
} from "./records.js";

interface StoredResponse {
  record: ResponseRecord;
  inputItems: RecordItem[];
  events: Map<number, RecordEvent>;
}

/** Records in process memory, with the memory session store. Values go in and out as copies. */
export class MemoryServerRecords implements ServerRecords {
  readonly responses: ResponseRecords = new MemoryResponses();
  readonly conversations: ConversationRecords = new MemoryConversations();
}

class MemoryResponses implements ResponseRecords {
  readonly #responses = new Map<string, StoredResponse>();

  async create(record: ResponseRecord, inputItems: readonly RecordItem[]): Promise<void> {
    if (this.#responses.has(record.id)) throw exists("Response", record.id);
    this.#responses.set(record.id, { record: copy(record), inputItems: copy([...inputItems]), events: new Map() });
  }

  async update(record: ResponseRecord): Promise<boolean> {
    const stored = this.#responses.get(record.id);
    if (stored) stored.record = copy(record);
    return stored !== undefined;
  }

  async get(id: string): Promise<ResponseRecord | undefined> {
    const stored = this.#responses.get(id);
    return stored && copy(stored.record);
  }

  async inputItems(id: string): Promise<RecordItem[]> {
    return copy(this.#responses.get(id)?.inputItems ?? []);
  }

  async appendEvents(id: string, events: readonly RecordEvent[]): Promise<boolean> {
    const stored = this.#responses.get(id);
    for (const event of events)
      if (!stored?.events.has(event.sequence_number)) stored?.events.set(event.sequence_number, copy(event));
    return stored !== undefined;
  }

  async events(id: string, after = -1): Promise<RecordEvent[]> {
    const events = [...(this.#responses.get(id)?.events.values() ?? [])];
    return copy(events.filter((event) => event.sequence_number > after)).sort(
      (a, b) => a.sequence_number - b.sequence_number,
    );
  }

  async delete(id: string): Promise<void> {
    this.#responses.delete(id);
  }
}

class MemoryConversations implements ConversationRecords {
  readonly #conversations = new Map<string, { record: ConversationRecord; items: RecordItem[] }>();

  async create(record: ConversationRecord, items: readonly RecordItem[]): Promise<void> {
    if (this.#conversations.has(record.id)) throw exists("Conversation", record.id);
    this.#conversations.set(record.id, { record: copy(record), items: copy([...items]) });
  }

  async get(id: string): Promise<{ record: ConversationRecord; items: RecordItem[] } | undefined> {
    const stored = this.#conversations.get(id);
    return stored && copy(stored);
  }

  async addItems(id: string, items: readonly RecordItem[]): Promise<boolean> {
    const stored = this.#conversations.get(id);
    stored?.items.push(...copy([...items]));
    return stored !== undefined;
  }

  async removeItem(id: string, itemId: string): Promise<boolean> {
    const stored = this.#conversations.get(id);
    if (stored) stored.items = stored.items.filter((item) => item.id !== itemId);
    return stored !== undefined;
  }

  async update(record: ConversationRecord): Promise<boolean> {
    const stored = this.#conversations.get(record.id);
    if (stored) stored.record = copy(record);
    return stored !== undefined;
  }

  async delete(id: string): Promise<void> {
    this.#conversations.delete(id);
  }
}

function copy<T>(value: T): T {
  return structuredClone(value);
}
