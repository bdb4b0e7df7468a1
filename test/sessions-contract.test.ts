import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import type { SDKMessage } from "../src/protocol/index.js";
import {
  applyMessage,
  assembleMessages,
  conversationFromMessages,
  filesToRestore,
  type IdGenerator,
  type ListSessionsFilter,
  initialDeriveState,
  MemorySessionStore,
  type MessageInfo,
  openSqliteSessionStore,
  type Part,
  type SessionStore,
  StoredMessage,
} from "../src/sessions/index.js";
import {
  assistant,
  compactBoundary,
  manualClock,
  prompt,
  sampleTurn,
  streamEvent,
  toolUse,
} from "./sessions-fixtures.js";
import { openTestPostgresStore } from "./sessions-postgres-helper.js";

interface Clock {
  now: () => number;
  newId: IdGenerator;
}

interface Factory {
  name: string;
  open(clock: Clock): Promise<{ store: SessionStore; cleanup: () => Promise<void> }>;
}

/** Readable, deterministic ids: the same sequence in the store and in a pure replay. */
function counterIds(): IdGenerator {
  let n = 0;
  return (prefix) => `${prefix}_${String(++n).padStart(6, "0")}`;
}

const factories: Factory[] = [
  {
    name: "memory",
    open: async (clock) => ({ store: new MemorySessionStore(clock), cleanup: async () => {} }),
  },
  {
    name: "sqlite",
    open: async (clock) => {
      const dir = mkdtempSync(join(tmpdir(), "gyre-sessions-"));
      const store = openSqliteSessionStore({ path: join(dir, "sessions.db"), ...clock });
      return {
        store,
        cleanup: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  { name: "postgres", open: (clock) => openTestPostgresStore(clock) },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe.each(factories)("SessionStore contract: $name", (factory) => {
  let store: SessionStore;
  let cleanup: () => Promise<void>;
  let clock: ReturnType<typeof manualClock>;

  beforeEach(async () => {
    clock = manualClock();
    const opened = await factory.open({ now: clock.now, newId: counterIds() });
    store = opened.store;
    cleanup = opened.cleanup;
  });
  afterEach(async () => {
    await cleanup();
  });

  async function appendAll(sessionId: string, messages: SDKMessage[]): Promise<void> {
    for (const message of messages) {
      clock.advance(10);
      await store.append(sessionId, message);
    }
  }

  it("creates, reads and refuses a duplicate id", async () => {
    const created = await store.createSession({ id: "s1", cwd: "/repo", model: "m1" });
    expect(created).toMatchObject({
      id: "s1",
      cwd: "/repo",
      model: "m1",
      title: null,
      messageCount: 0,
      costUsd: 0,
    });
    expect(created.createdAt).toBe(clock.now());
    expect(await store.getSession("s1")).toEqual(created);
    expect(await store.getSession("nope")).toBeUndefined();
    const error = await rejection(store.createSession({ id: "s1", cwd: "/repo" }));
    expect(isGyreError(error, "session_store_error")).toBe(true);
    const generated = await store.createSession({ cwd: "/repo" });
    expect(generated.id).toMatch(UUID);
    expect(generated.project).toBe("/repo");
  });

  it("returns exactly the messages appended, skipping stream events and repeated uuids", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const turn = sampleTurn("s1");
    const messages: SDKMessage[] = [turn[0]!, streamEvent("s1"), ...turn.slice(1)];
    await appendAll("s1", messages);
    await store.append("s1", turn[1]!);
    const stored = await store.getSessionMessages("s1");
    expect(stored).toEqual(turn);
    expect(JSON.stringify(stored)).toContain("hello\\u0000world ✓");
    expect((await store.getSession("s1"))?.messageCount).toBe(turn.length);
  });

  it("creates a session whole with its messages, or not at all", async () => {
    const turn = sampleTurn("s1");
    const created = await store.createSession({ id: "s1", cwd: "/repo" }, [
      turn[0]!,
      streamEvent("s1"),
      ...turn.slice(1),
    ]);
    expect(created.messageCount).toBe(turn.length);
    expect(await store.getSessionMessages("s1")).toEqual(turn);
    expect(await store.getSession("s1")).toEqual(created);
    // Appended one by one, the same messages derive the same rows.
    const second = sampleTurn("s2");
    await store.createSession({ id: "s2", cwd: "/repo" });
    await appendAll("s2", second);
    const shape = (messages: StoredMessage[]) => messages.map((m) => [m.role, m.parts.map((part) => part.type)]);
    expect(shape(await store.getMessages("s1"))).toEqual(shape(await store.getMessages("s2")));
    // An id that exists refuses the whole write: the existing session keeps only its own messages.
    const error = await rejection(store.createSession({ id: "s2", cwd: "/repo" }, [prompt("s2", "late")]));
    expect(isGyreError(error, "session_store_error")).toBe(true);
    expect(await store.getSessionMessages("s2")).toEqual(second);
  });

  it("cuts history at an inclusive uuid and names unknown ones", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const turn = sampleTurn("s1");
    await appendAll("s1", turn);
    expect(await store.getSessionMessages("s1", { upTo: turn[1]!.uuid })).toEqual(turn.slice(0, 2));
    const error = await rejection(store.getSessionMessages("s1", { upTo: "missing" }));
    expect(isGyreError(error, "session_message_not_found")).toBe(true);
  });

  it("reports unknown sessions as session_not_found", async () => {
    const attempts: Array<() => Promise<unknown>> = [
      () => store.append("nope", prompt("nope", "hi")),
      () => store.getSessionMessages("nope"),
      () => store.getMessages("nope"),
      () => store.renameSession("nope", "x"),
      () => store.forkSession("nope"),
      () => store.acquireLock("nope"),
      () => store.saveCheckpoint("nope", "u", "/f", null),
      () => store.getCheckpoints("nope", "u"),
    ];
    for (const attempt of attempts) {
      expect(isGyreError(await rejection(attempt()), "session_not_found")).toBe(true);
    }
  });

  it("derives messages and parts exactly as the pure reducer does", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const turn = sampleTurn("s1");
    await appendAll("s1", turn);

    const replayClock = manualClock();
    const newId = counterIds();
    let state = initialDeriveState();
    const rows = new Map<string, MessageInfo>();
    const parts = new Map<string, Part>();
    for (const message of turn) {
      replayClock.advance(10);
      const applied = applyMessage(state, message, { sessionId: "s1", now: replayClock.now(), newId });
      state = applied.state;
      for (const row of applied.messages) rows.set(row.id, row);
      for (const part of applied.parts) parts.set(part.id, part);
    }
    expect(await store.getMessages("s1")).toEqual(assembleMessages([...rows.values()], [...parts.values()]));
  });

  it("derives the turn: roles, parts, tool states, patches, totals", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const start = clock.now();
    await appendAll("s1", sampleTurn("s1"));
    const messages = await store.getMessages("s1");
    for (const message of messages) expect(StoredMessage.safeParse(message).success).toBe(true);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    const [user, first, second] = messages as [StoredMessage, StoredMessage, StoredMessage];
    expect(user.parts).toMatchObject([{ type: "text", text: "Create hello.txt and then show me config.json\nplease" }]);
    expect(first.parentId).toBe(user.id);
    expect(second.parentId).toBe(first.id);
    expect(first).toMatchObject({
      costUsd: 0.01,
      finishReason: "tool_use",
      createdAt: start + 10,
      completedAt: start + 20,
    });
    expect(first.parts.map((p) => p.type)).toEqual([
      "step-start",
      "reasoning",
      "text",
      "tool",
      "tool",
      "step-finish",
      "patch",
    ]);
    const [write, read] = first.parts.filter((p) => p.type === "tool");
    expect(write).toMatchObject({
      tool: "Write",
      state: {
        status: "completed",
        output: "File created successfully at /repo/hello.txt",
        startedAt: start + 30,
        endedAt: start + 50,
      },
    });
    expect(read).toMatchObject({
      tool: "Read",
      state: { status: "error", error: "ENOENT: no such file", startedAt: start + 40, endedAt: start + 50 },
    });
    expect(first.parts.at(-1)).toMatchObject({ type: "patch", files: ["/repo/hello.txt"] });
    expect(second.parts.find((p) => p.type === "step-start")).toMatchObject({ time: start + 50 });

    const session = await store.getSession("s1");
    expect(session).toMatchObject({
      title: "Create hello.txt and then show me config.json",
      model: "anthropic/claude-sonnet-4-5",
      costUsd: 0.03,
      runs: 1,
      // The result's num_turns: the model calls of the run.
      turns: 2,
      lastResult: { subtype: "success", terminalReason: "completed", isError: false },
      tokens: { input_tokens: 2200, output_tokens: 80 },
      updatedAt: start + 70,
    });
  });

  it("marks compaction and keeps pending tools pending", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    await appendAll("s1", [
      prompt("s1", "go"),
      assistant("s1", [toolUse("t1", "Bash", { command: "sleep 100" })], { cost_usd: 0.5 }),
      compactBoundary("s1"),
    ]);
    const messages = await store.getMessages("s1");
    expect(messages[1]?.parts.find((p) => p.type === "tool")).toMatchObject({ state: { status: "pending" } });
    expect(messages[2]?.parts).toMatchObject([{ type: "compaction", trigger: "auto", preTokens: 150_000 }]);
    expect((await store.getSession("s1"))?.costUsd).toBe(0.5);
  });

  it("lists newest first, by cwd, with a limit; latestSession follows updates", async () => {
    await store.createSession({ id: "a", cwd: "/one" });
    clock.advance(1);
    await store.createSession({ id: "b", cwd: "/two" });
    clock.advance(1);
    await store.createSession({ id: "c", cwd: "/one" });
    expect((await store.listSessions()).map((s) => s.id)).toEqual(["c", "b", "a"]);
    expect((await store.listSessions({ cwd: "/one" })).map((s) => s.id)).toEqual(["c", "a"]);
    expect((await store.listSessions({ limit: 2 })).map((s) => s.id)).toEqual(["c", "b"]);
    clock.advance(1);
    await store.append("a", prompt("a", "hello again"));
    expect((await store.latestSession("/one"))?.id).toBe("a");
    expect(await store.latestSession("/nowhere")).toBeUndefined();
  });

  it("lists and continues by project, which defaults to the cwd", async () => {
    await store.createSession({ id: "a", cwd: "/link/app", project: "/real/app" });
    clock.advance(1);
    await store.createSession({ id: "b", cwd: "/real/app/sub", project: "/real/app" });
    clock.advance(1);
    await store.createSession({ id: "c", cwd: "/real/app" });
    expect(await store.getSession("a")).toMatchObject({ cwd: "/link/app", project: "/real/app" });
    expect((await store.listSessions({ project: "/real/app" })).map((s) => s.id)).toEqual(["c", "b", "a"]);
    expect((await store.listSessions({ project: "/link/app" })).map((s) => s.id)).toEqual([]);
    expect((await store.listSessions({ cwd: "/link/app" })).map((s) => s.id)).toEqual(["a"]);
    expect((await store.latestSession("/real/app"))?.id).toBe("c");
    clock.advance(1);
    await store.append("a", prompt("a", "again"));
    expect((await store.latestSession("/real/app"))?.id).toBe("a");
  });

  it("lists one project's sessions, newest first, up to a limit, with its subagents' when asked (gyre serve's /ui: a key's own)", async () => {
    await store.createSession({ id: "a1", cwd: "/srv", project: "gyre-serve:aaa" });
    clock.advance(1);
    await store.createSession({ id: "b1", cwd: "/srv", project: "gyre-serve:bbb" });
    clock.advance(1);
    await store.createSession({ id: "a2", cwd: "/srv", project: "gyre-serve:aaa" });
    clock.advance(1);
    await store.createSession({
      id: "a2-sub",
      cwd: "/srv",
      project: "gyre-serve:aaa",
      parentId: "a2",
      parentToolUseId: "call_1",
    });
    const ids = async (filter: ListSessionsFilter) => (await store.listSessions(filter)).map((s) => s.id);
    expect(await ids({ project: "gyre-serve:aaa" })).toEqual(["a2", "a1"]);
    expect(await ids({ project: "gyre-serve:aaa", limit: 1 })).toEqual(["a2"]);
    expect(await ids({ project: "gyre-serve:aaa", subagents: "include", limit: 200 })).toEqual(["a2-sub", "a2", "a1"]);
    expect(await ids({ project: "gyre-serve:bbb", subagents: "include" })).toEqual(["b1"]);
    expect(await ids({ project: "gyre-serve:ccc" })).toEqual([]);
  });

  it("renames and deletes", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    await appendAll("s1", sampleTurn("s1"));
    await store.saveCheckpoint("s1", "x", "/repo/a", null);
    expect((await store.renameSession("s1", "My title")).title).toBe("My title");
    expect((await store.getSession("s1"))?.title).toBe("My title");
    await store.deleteSession("s1");
    await store.deleteSession("s1");
    expect(await store.getSession("s1")).toBeUndefined();
    expect(isGyreError(await rejection(store.getMessages("s1")), "session_not_found")).toBe(true);
    await store.createSession({ id: "s1", cwd: "/repo" });
    expect(await store.getSessionMessages("s1")).toEqual([]);
    expect(await store.getMessages("s1")).toEqual([]);
  });

  it("lists subagents' sessions only when asked, and deletes them (not forks) with their parent", async () => {
    await store.createSession({ id: "top", cwd: "/repo" });
    await store.createSession({ id: "sub", cwd: "/repo", parentId: "top", parentToolUseId: "call_1", title: "look" });
    await store.createSession({ id: "subsub", cwd: "/repo", parentId: "sub", parentToolUseId: "call_2" });
    await store.createSession({ id: "other", cwd: "/elsewhere", parentId: "x", parentToolUseId: "call_3" });
    await appendAll("top", sampleTurn("top"));
    const fork = await store.forkSession("top", { id: "fork" });
    expect(fork).toMatchObject({ parentId: "top", parentToolUseId: null });
    expect(await store.getSession("sub")).toMatchObject({ parentId: "top", parentToolUseId: "call_1", title: "look" });
    const ids = async (filter: ListSessionsFilter) => (await store.listSessions(filter)).map((s) => s.id).sort();
    expect(await ids({})).toEqual(["fork", "top"]);
    expect(await ids({ project: "/repo" })).toEqual(["fork", "top"]);
    // The subagent's session is the latest updated (or ties, and sorts first by id): still not picked.
    await appendAll("subsub", [prompt("subsub", "later")]);
    expect(["fork", "top"]).toContain((await store.latestSession("/repo"))?.id);
    expect(await ids({ project: "/repo", subagents: "include" })).toEqual(["fork", "sub", "subsub", "top"]);
    expect(await ids({ subagents: "only" })).toEqual(["other", "sub", "subsub"]);
    expect(await ids({ parentId: "top", subagents: "only" })).toEqual(["sub"]);
    expect(await ids({ parentId: "top" })).toEqual(["fork"]);
    expect(await ids({ cwd: "/elsewhere", subagents: "only", limit: 1 })).toEqual(["other"]);
    await store.deleteSession("top");
    expect(await ids({ subagents: "include" })).toEqual(["fork", "other"]);
  });

  it("forks history up to a message into a new session", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const turn = sampleTurn("s1");
    await appendAll("s1", turn);
    const fork = await store.forkSession("s1", { upTo: turn[4]!.uuid });
    expect(fork).toMatchObject({
      parentId: "s1",
      forkedFromMessage: turn[4]!.uuid,
      cwd: "/repo",
      messageCount: 5,
    });
    expect(fork.id).not.toBe("s1");
    const copied = await store.getSessionMessages(fork.id);
    expect(copied).toEqual(turn.slice(0, 5).map((m) => ({ ...m, session_id: fork.id })));
    const derived = await store.getMessages(fork.id);
    expect(derived.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(derived.every((m) => m.sessionId === fork.id)).toBe(true);

    await store.append(fork.id, prompt(fork.id, "continue in the fork"));
    expect(await store.getSessionMessages("s1")).toEqual(turn);
    const whole = await store.forkSession("s1", { title: "copy" });
    expect(whole).toMatchObject({ title: "copy", messageCount: turn.length, costUsd: 0.03 });
  });

  it("gives a fork a UUID like any new session, or the id asked for, and its own title", async () => {
    await store.createSession({ id: "s1", cwd: "/repo", project: "/real/repo" });
    const turn = sampleTurn("s1");
    await appendAll("s1", turn);
    const parentTitle = (await store.getSession("s1"))!.title;
    expect(parentTitle).toEqual(expect.any(String));

    const fork = await store.forkSession("s1");
    expect(fork.id).toMatch(UUID);
    expect(fork).toMatchObject({ title: `${parentTitle} (fork)`, cwd: "/repo", project: "/real/repo" });
    expect((await store.getSession("s1"))!.title).toBe(parentTitle);

    const named = await store.forkSession("s1", { id: "fork-2" });
    expect(named.id).toBe("fork-2");
    expect(await store.getSessionMessages("fork-2")).toEqual(turn.map((m) => ({ ...m, session_id: "fork-2" })));
    // A fork of a fork is titled after its own parent.
    expect((await store.forkSession("fork-2")).title).toBe(`${parentTitle} (fork) (fork)`);
  });

  it("says a lock held by another run of this process is, without naming our pid as a foreign holder", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const lock = await store.acquireLock("s1");
    const error = await rejection(store.acquireLock("s1"));
    expect(isGyreError(error, "session_busy")).toBe(true);
    expect((error as Error).message).toBe("Session s1 is in use by another run in this process");
    expect((error as Error).message).not.toContain(String(process.pid));
    await lock.release();
  });

  it("gives a session lock to one holder at a time", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const lock = await store.acquireLock("s1", "loop-a");
    expect(lock).toMatchObject({ sessionId: "s1", owner: "loop-a" });
    const error = await rejection(store.acquireLock("s1", "loop-b"));
    expect(isGyreError(error, "session_busy")).toBe(true);
    expect((error as Error).message).toContain("loop-a");
    await lock.release();
    await lock.release();
    const again = await store.acquireLock("s1", "loop-b");
    await lock.release();
    expect(isGyreError(await rejection(store.acquireLock("s1")), "session_busy")).toBe(true);
    await again.release();
  });

  it("refuses a user message without its uuid (optional on a streamed prompt, needed to store it)", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const { uuid: _uuid, ...bare } = prompt("s1", "hi");
    expect(isGyreError(await rejection(store.append("s1", bare)), "session_store_error")).toBe(true);
    expect(await store.getSessionMessages("s1")).toEqual([]);
  });

  it("keeps the first checkpoint per message and file, and returns those from a message on", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const first = prompt("s1", "edit a");
    const second = prompt("s1", "edit a and b");
    await store.append("s1", first);
    const binary = Buffer.from([0, 255, 1, 2, 0]);
    await store.saveCheckpoint("s1", first.uuid, "/repo/a", binary);
    await store.saveCheckpoint("s1", first.uuid, "/repo/a", Buffer.from("later"));
    await store.append("s1", second);
    await store.saveCheckpoint("s1", second.uuid, "/repo/a", Buffer.from("v1"));
    await store.saveCheckpoint("s1", second.uuid, "/repo/b", null);

    const all = await store.getCheckpoints("s1", first.uuid);
    expect(all.map((c) => [c.messageUuid, c.filePath, c.contentBefore?.toString("hex") ?? null])).toEqual([
      [first.uuid, "/repo/a", "00ff010200"],
      [second.uuid, "/repo/a", Buffer.from("v1").toString("hex")],
      [second.uuid, "/repo/b", null],
    ]);
    const restore = filesToRestore(all);
    expect(restore.get("/repo/a")?.equals(binary)).toBe(true);
    expect(restore.get("/repo/b")).toBeNull();
    expect((await store.getCheckpoints("s1", second.uuid)).map((c) => c.filePath)).toEqual(["/repo/a", "/repo/b"]);
    const error = await rejection(store.getCheckpoints("s1", "unknown"));
    expect(isGyreError(error, "session_message_not_found")).toBe(true);
  });

  it("checkpoints for a message not yet appended belong to the next message", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    await store.append("s1", prompt("s1", "first"));
    await store.saveCheckpoint("s1", "upcoming", "/repo/x", Buffer.from("x0"));
    expect((await store.getCheckpoints("s1", "upcoming")).map((c) => c.filePath)).toEqual(["/repo/x"]);
  });

  it("keeps every one of many concurrent appends to one session", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    const messages = Array.from({ length: 40 }, (_, i) => prompt("s1", `message ${i}`));
    await Promise.all(messages.map((message) => store.append("s1", message)));
    const stored = await store.getSessionMessages("s1");
    expect(stored).toHaveLength(40);
    expect(new Set(stored.map((m) => m.uuid))).toEqual(new Set(messages.map((m) => m.uuid)));
    const derived = await store.getMessages("s1");
    expect(derived).toHaveLength(40);
    expect(derived.map((m) => m.sdkUuid)).toEqual(stored.map((m) => m.uuid));
    expect((await store.getSession("s1"))?.messageCount).toBe(40);
  });

  it("answers interrupted tool calls on a resumed history", async () => {
    await store.createSession({ id: "s1", cwd: "/repo" });
    await appendAll("s1", [prompt("s1", "go"), assistant("s1", [toolUse("t1", "Bash", { command: "make" })])]);
    const history = conversationFromMessages(await store.getSessionMessages("s1"));
    expect(history.at(-1)).toMatchObject({
      type: "user",
      message: { content: [{ type: "tool_result", tool_use_id: "t1", is_error: true }] },
    });
  });
});
