import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import {
  MemorySessionStore,
  openPostgresSessionStore,
  openSqliteSessionStore,
  type RecordItem,
  type ResponseRecord,
  type ServerRecords,
  type SessionStore,
} from "../src/sessions/index.js";
import { openTestPostgresStore, TEST_DATABASE_URL } from "./sessions-postgres-helper.js";

// The contract of the server's records (responses, their input items and events, conversations),
// which every store of Gyre's keeps in tables of its own beside the sessions.

interface Opened {
  store: SessionStore;
  /** Another connection to the same database (another instance); the memory store's is itself, shared in one process. */
  other: () => Promise<SessionStore>;
  cleanup: () => Promise<void>;
}

const factories: Array<{ name: string; open: () => Promise<Opened> }> = [
  {
    name: "memory",
    open: async () => {
      const store = new MemorySessionStore();
      return { store, other: async () => store, cleanup: async () => {} };
    },
  },
  {
    name: "sqlite",
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), "gyre-records-"));
      const path = join(dir, "sessions.db");
      const store = openSqliteSessionStore({ path });
      const others: SessionStore[] = [];
      return {
        store,
        other: async () => others[others.push(openSqliteSessionStore({ path })) - 1]!,
        cleanup: async () => {
          for (const each of [store, ...others]) await each.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "postgres",
    open: async () => {
      const { store, schema, cleanup } = await openTestPostgresStore();
      const others: SessionStore[] = [];
      return {
        store,
        other: async () =>
          others[others.push(await openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema })) - 1]!,
        cleanup: async () => {
          for (const each of others) await each.close();
          await cleanup();
        },
      };
    },
  },
];

const RESPONSE = "resp_00000000000000000000000000000001";
const CONVERSATION = "conv_00000000000000000000000000000001";

function response(status: string, extra: Record<string, unknown> = {}): ResponseRecord {
  return {
    id: RESPONSE,
    owner: "owner-1",
    status,
    runSessionId: `${RESPONSE}-run`,
    data: { id: RESPONSE, object: "response", status, output: [], ...extra },
  };
}

const item = (id: string, text = id): RecordItem => ({ type: "message", id, role: "user", content: text });
const event = (n: number) => ({ type: "response.output_text.delta", sequence_number: n, delta: `d${n}` });

describe.each(factories)("server records in the $name store", (factory) => {
  let opened: Opened;
  let records: ServerRecords;
  beforeEach(async () => {
    opened = await factory.open();
    records = opened.store.records!;
  });
  afterEach(async () => {
    await opened.cleanup();
  });

  it("keeps a response's latest state, its input items in order and its events, until it is deleted", async () => {
    const items = [item("msg_b"), item("msg_a"), item("msg_c")];
    await records.responses.create(response("queued"), items);
    expect(await records.responses.update(response("completed", { output: [{ type: "message" }] }))).toBe(true);
    expect(await records.responses.get(RESPONSE)).toEqual(response("completed", { output: [{ type: "message" }] }));
    expect(await records.responses.inputItems(RESPONSE)).toEqual(items);

    expect(await records.responses.appendEvents(RESPONSE, [event(0), event(1)])).toBe(true);
    // A retried write keeps what is stored; later events follow.
    expect(await records.responses.appendEvents(RESPONSE, [{ ...event(1), delta: "again" }, event(2)])).toBe(true);
    expect(await records.responses.events(RESPONSE)).toEqual([event(0), event(1), event(2)]);
    expect(await records.responses.events(RESPONSE, 0)).toEqual([event(1), event(2)]);

    await records.responses.delete(RESPONSE);
    expect(await records.responses.get(RESPONSE)).toBeUndefined();
    expect(await records.responses.inputItems(RESPONSE)).toEqual([]);
    expect(await records.responses.events(RESPONSE)).toEqual([]);
    await records.responses.delete(RESPONSE);
  });

  it("writes nothing to a response that is not stored, and refuses an id twice", async () => {
    expect(await records.responses.update(response("completed"))).toBe(false);
    expect(await records.responses.appendEvents(RESPONSE, [event(0)])).toBe(false);
    expect(await records.responses.get(RESPONSE)).toBeUndefined();
    expect(await records.responses.events(RESPONSE)).toEqual([]);
    await records.responses.create(response("queued"), []);
    const error = await records.responses.create(response("queued"), []).catch((caught: unknown) => caught);
    expect(isGyreError(error, "session_store_error")).toBe(true);
  });

  it("keeps a conversation's items in the order they came, and its object's latest version", async () => {
    const conversation = { id: CONVERSATION, owner: "owner-1", data: { id: CONVERSATION, metadata: { a: "1" } } };
    await records.conversations.create(conversation, [item("msg_1")]);
    expect(await records.conversations.addItems(CONVERSATION, [item("msg_2"), item("msg_3")])).toBe(true);
    expect(await records.conversations.removeItem(CONVERSATION, "msg_2")).toBe(true);
    expect(await records.conversations.addItems(CONVERSATION, [item("msg_4")])).toBe(true);
    const updated = { ...conversation, data: { id: CONVERSATION, metadata: { b: "2" } } };
    expect(await records.conversations.update(updated)).toBe(true);
    expect(await records.conversations.get(CONVERSATION)).toEqual({
      record: updated,
      items: [item("msg_1"), item("msg_3"), item("msg_4")],
    });

    await records.conversations.delete(CONVERSATION);
    expect(await records.conversations.get(CONVERSATION)).toBeUndefined();
    expect(await records.conversations.addItems(CONVERSATION, [item("msg_5")])).toBe(false);
    expect(await records.conversations.removeItem(CONVERSATION, "msg_1")).toBe(false);
    expect(await records.conversations.update(updated)).toBe(false);
    expect(await records.conversations.get(CONVERSATION)).toBeUndefined();
  });

  it("loses no item when instances add to one conversation at once", async () => {
    const others = [opened.store, await opened.other(), await opened.other()];
    await records.conversations.create({ id: CONVERSATION, owner: "o", data: {} }, []);
    await Promise.all(
      others.flatMap((store, instance) =>
        Array.from({ length: 5 }, (_, n) =>
          store.records!.conversations.addItems(CONVERSATION, [item(`m${instance}${n}`)]),
        ),
      ),
    );
    const stored = await records.conversations.get(CONVERSATION);
    expect(stored?.items.map((each) => each.id).sort()).toEqual(
      [0, 1, 2].flatMap((instance) => [0, 1, 2, 3, 4].map((n) => `m${instance}${n}`)),
    );
  });

  it("returns copies: changing what it gave or got changes nothing stored", async () => {
    const items = [item("msg_1")];
    const record = response("queued");
    await records.responses.create(record, items);
    items[0]!.content = "changed";
    (record.data as { status: string }).status = "changed";
    const read = await records.responses.get(RESPONSE);
    (read!.data as { status: string }).status = "changed again";
    expect(await records.responses.get(RESPONSE)).toEqual(response("queued"));
    expect(await records.responses.inputItems(RESPONSE)).toEqual([item("msg_1")]);
  });
});
