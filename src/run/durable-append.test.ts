import { describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { MemorySessionStore } from "../sessions/index.js";
import { appendDurably, storeOutOfReach } from "./durable-append.js";

const message = (uuid: string) =>
  ({
    type: "user",
    uuid,
    session_id: "s",
    parent_tool_use_id: null,
    message: { role: "user", content: "hi" },
  }) as SDKMessage;

describe("storeOutOfReach", () => {
  it("tells a lost connection from a refusal, through the store's wrapping", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(storeOutOfReach(new GyreError("session_store_error", "PostgreSQL …", { cause: refused }))).toBe(true);
    expect(storeOutOfReach(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(storeOutOfReach(Object.assign(new Error("admin shutdown"), { code: "57P01" }))).toBe(true);
    expect(storeOutOfReach(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(storeOutOfReach(new GyreError("session_store_error", "A session with id s already exists"))).toBe(false);
  });
});

describe("appendDurably", () => {
  it("waits for a store that cannot be reached, and stores the message once", async () => {
    const store = new MemorySessionStore();
    await store.createSession({ id: "s", cwd: "/", project: "p", model: "m" });
    let failures = 2;
    const append = store.append.bind(store);
    store.append = async (sessionId, sent) => {
      if (failures-- > 0) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
      return append(sessionId, sent);
    };
    await appendDurably(store, "s", message("a"));
    expect((await store.getSessionMessages("s")).map((stored) => (stored as { uuid: string }).uuid)).toEqual(["a"]);
  });

  it("does not store twice a message whose commit went through before the connection broke", async () => {
    const store = new MemorySessionStore();
    await store.createSession({ id: "s", cwd: "/", project: "p", model: "m" });
    const append = store.append.bind(store);
    let first = true;
    store.append = async (sessionId, sent) => {
      await append(sessionId, sent);
      if (first) {
        first = false;
        throw new Error("Connection terminated unexpectedly");
      }
    };
    await appendDurably(store, "s", message("a"));
    expect(await store.getSessionMessages("s")).toHaveLength(1);
  });

  it("fails at once on an error that is not about reaching the store", async () => {
    const store = new MemorySessionStore();
    store.append = async () => {
      throw new GyreError("session_store_error", "no such session");
    };
    await expect(appendDurably(store, "s", message("a"))).rejects.toThrow("no such session");
  });
});
