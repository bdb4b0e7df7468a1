import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../sessions/index.js";
import type { ResponseObject } from "./response-object.js";
import { asConversationItem, type ConversationObject, RecordConversationStore } from "./conversations.js";
import { RecordResponseStore } from "./response-store.js";

const ID = "conv_0123456789abcdef0123456789abcdef";
const conversation: ConversationObject = { id: ID, object: "conversation", created_at: 1, metadata: { a: "1" } };
const message = (id: string, text: string) => asConversationItem({ type: "message", id, role: "user", content: text });

describe("RecordConversationStore", () => {
  it("reads a conversation back as its changes applied in order", async () => {
    const store = new RecordConversationStore(new MemorySessionStore().records.conversations);
    await store.create("owner-1", conversation, [message("msg_1", "one")]);
    expect(await store.addItems(ID, [message("msg_2", "two"), message("msg_3", "three")])).toBe(true);
    expect(await store.removeItem(ID, "msg_2")).toBe(true);
    expect(await store.setMetadata(ID, { b: "2" })).toBe(true);
    const stored = await store.get(ID);
    expect(stored?.owner).toBe("owner-1");
    expect(stored?.conversation).toEqual({ ...conversation, metadata: { b: "2" } });
    expect(stored?.items.map((item) => item.id)).toEqual(["msg_1", "msg_3"]);
    expect(stored?.items[0]).toEqual({
      type: "message",
      id: "msg_1",
      role: "user",
      content: [{ type: "input_text", text: "one" }],
      status: "completed",
    });
  });

  it("writes nothing to a deleted conversation", async () => {
    const store = new RecordConversationStore(new MemorySessionStore().records.conversations);
    await store.create("owner-1", conversation, []);
    await store.delete(ID);
    expect(await store.get(ID)).toBeUndefined();
    expect(await store.addItems(ID, [message("msg_1", "late")])).toBe(false);
    expect(await store.removeItem(ID, "msg_1")).toBe(false);
    expect(await store.setMetadata(ID, { late: "yes" })).toBe(false);
    expect(await store.get(ID)).toBeUndefined();
  });
});

describe("RecordResponseStore", () => {
  const response = (status: ResponseObject["status"]) =>
    ({ id: "resp_0123456789abcdef0123456789abcdef", model: "m", status }) as ResponseObject;
  const runSessionId = "resp_0123456789abcdef0123456789abcdef-run";

  it("keeps the latest version, the input items, the events; a delete takes the run's session too", async () => {
    const sessions = new MemorySessionStore();
    const store = new RecordResponseStore(sessions.records.responses, sessions);
    const inputItems = [{ type: "message" as const, id: "msg_1", role: "user" as const, content: "hi" }];
    await store.save({ owner: "o", response: response("in_progress"), inputItems, runSessionId }, { first: true });
    await sessions.createSession({ id: runSessionId, cwd: "/" });
    await store.save({ owner: "o", response: response("completed"), inputItems, runSessionId });
    const events = [0, 1, 2].map((n) => ({ type: "response.in_progress", sequence_number: n }));
    await store.appendEvents(response("completed").id, events);
    expect(await store.get(response("completed").id)).toEqual({
      owner: "o",
      response: response("completed"),
      inputItems,
      runSessionId,
    });
    expect(await store.events(response("completed").id, 0)).toEqual(events.slice(1));

    await store.delete(response("completed").id);
    expect(await store.get(response("completed").id)).toBeUndefined();
    expect(await store.events(response("completed").id, -1)).toEqual([]);
    expect(await sessions.getSession(runSessionId)).toBeUndefined();
  });

  it("does not bring back a response deleted while it ran", async () => {
    const sessions = new MemorySessionStore();
    const store = new RecordResponseStore(sessions.records.responses, sessions);
    await store.save({ owner: "o", response: response("in_progress"), inputItems: [], runSessionId }, { first: true });
    await store.delete(response("in_progress").id);
    await store.save({ owner: "o", response: response("completed"), inputItems: [], runSessionId });
    expect(await store.get(response("completed").id)).toBeUndefined();
  });
});
