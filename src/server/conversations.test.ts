import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { MemorySessionStore } from "../sessions/index.js";
import type { ResponseObject } from "./response-object.js";
import { asConversationItem, type ConversationObject, SessionConversationStore } from "./conversations.js";
import { SessionResponseStore } from "./response-store.js";

const ID = "conv_0123456789abcdef0123456789abcdef";
const conversation: ConversationObject = { id: ID, object: "conversation", created_at: 1, metadata: { a: "1" } };
const message = (id: string, text: string) => asConversationItem({ type: "message", id, role: "user", content: text });

describe("SessionConversationStore", () => {
  it("reads a conversation back as its changes applied in order", async () => {
    const store = new SessionConversationStore(new MemorySessionStore());
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

  it("writes nothing to a deleted conversation, and reads no other session as one", async () => {
    const sessions = new MemorySessionStore();
    const store = new SessionConversationStore(sessions);
    await store.create("owner-1", conversation, []);
    await store.delete(ID);
    expect(await store.get(ID)).toBeUndefined();
    expect(await store.addItems(ID, [message("msg_1", "late")])).toBe(false);
    expect(await store.get(ID)).toBeUndefined();

    const responses = new SessionResponseStore(sessions);
    const responseId = "resp_0123456789abcdef0123456789abcdef";
    await sessions.createSession({ id: responseId, cwd: "/", project: "p", model: "m" });
    expect(await store.get(responseId)).toBeUndefined();
    expect(await responses.get(ID)).toBeUndefined();
  });

  it("finds no conversation (and no response) deleted while it is read, on another instance", async () => {
    // The delete lands between the look-up of the session and the read of its messages.
    class DeletedMeanwhile extends MemorySessionStore {
      override async getSessionMessages(id: string): Promise<SDKMessage[]> {
        await this.deleteSession(id);
        return super.getSessionMessages(id);
      }
    }
    const sessions = new DeletedMeanwhile();
    const store = new SessionConversationStore(sessions);
    await store.create("owner-1", conversation, [message("msg_1", "one")]);
    expect(await store.get(ID)).toBeUndefined();

    const responses = new SessionResponseStore(sessions);
    const response = { id: "resp_0123456789abcdef0123456789abcdef", model: "m" } as ResponseObject;
    await responses.save({ owner: "owner-1", response, inputItems: [], runSessionId: "r" }, { first: true });
    expect(await responses.get(response.id)).toBeUndefined();
  });
});
