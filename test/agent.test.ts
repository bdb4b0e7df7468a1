import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  defineTool,
  isGyreError,
  openSqliteSessionStore,
  query,
  type SDKMessage,
  type SDKUserMessage,
  type SessionStore,
} from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, withMock } from "./helpers.js";
import { openTestPostgresStore } from "./sessions-postgres-helper.js";

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-agent-"));
  store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function collect(run: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of run) messages.push(message);
  return messages;
}

function resultText(messages: SDKMessage[]): string | undefined {
  const last = messages.at(-1);
  return last?.type === "result" ? last.result : undefined;
}

describe.each(FORMATS)("Agent over $name", (format) => {
  it("a session carries the history across sends and is persisted; the agent itself keeps no state", async () => {
    const script = {
      turns: [mockTurn.text("Hi Ada."), mockTurn.text("Your name is Ada."), mockTurn.text("Hello.")],
    };
    await withMock(script, async (server) => {
      const agent = new Agent({
        model: format.model,
        env: mockEnv(server),
        tools: [],
        sessionStore: store,
        cwd: dir,
      });
      const chat = agent.session();
      const id = chat.id;
      expect(resultText(await collect(chat.send("I am Ada.")))).toBe("Hi Ada.");
      expect(resultText(await collect(chat.send("What is my name?")))).toBe("Your name is Ada.");
      expect(chat.id).toBe(id);
      const second = JSON.stringify(server.requests[1]?.body);
      for (const text of ["I am Ada.", "Hi Ada.", "What is my name?"]) expect(second).toContain(text);
      const stored = await store.getSessionMessages(id!);
      expect(stored.filter((m) => m.type === "result")).toHaveLength(2);

      // A one-off query on the same agent starts fresh.
      await collect(agent.query("Hello"));
      expect(JSON.stringify(server.requests[2]?.body)).not.toContain("Ada");
    });
  });
});

describe("Agent sessions", () => {
  const format = FORMATS[0];

  it("with persistSession false the history still carries over, in memory", async () => {
    const script = { turns: [mockTurn.text("one"), mockTurn.text("two")] };
    await withMock(script, async (server) => {
      const agent = new Agent({
        model: format.model,
        env: mockEnv(server),
        tools: [],
        persistSession: false,
        cwd: dir,
      });
      const chat = agent.session();
      await collect(chat.send("first"));
      expect(resultText(await collect(chat.send("second")))).toBe("two");
      expect(JSON.stringify(server.requests[1]?.body)).toContain("first");
    });
  });
});

/** A tool that reports when it starts and finishes only when the test opens its gate. */
function gatedTool() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = defineTool({
    name: "wait",
    description: "Waits.",
    inputSchema: z.object({}),
    readOnly: true,
    execute: async () => {
      started();
      await gate;
      return "done";
    },
  });
  return { tool, running, open };
}

const stores: Array<{ name: string; open: () => Promise<{ store: SessionStore; cleanup: () => Promise<void> }> }> = [
  {
    name: "SQLite",
    open: async () => {
      const own = openSqliteSessionStore({ path: join(dir, "overlap.db") });
      return { store: own, cleanup: () => own.close() };
    },
  },
  { name: "PostgreSQL", open: () => openTestPostgresStore() },
];

describe.each(stores)("overlapping sends on one AgentSession ($name)", ({ open }) => {
  const format = FORMATS[0];

  it("the second send waits for the first and then runs on its history; neither fails", async () => {
    const { tool, running, open: finishTool } = gatedTool();
    const script = { turns: [mockTurn.toolUse("wait", {}), mockTurn.text("first done"), mockTurn.text("second done")] };
    const { store: sessionStore, cleanup } = await open();
    try {
      await withMock(script, async (server) => {
        const agent = new Agent({ model: format.model, env: mockEnv(server), tools: [tool], sessionStore, cwd: dir });
        const chat = agent.session();
        const first = collect(chat.send("go"));
        await running;
        // Started while the first is inside its tool call: it must wait, not take the session.
        const second = collect(chat.send("again"));
        const requestsWhileWaiting = server.requests.length;
        finishTool();
        const [one, two] = await Promise.all([first, second]);
        expect(requestsWhileWaiting).toBe(1);
        expect(resultText(one)).toBe("first done");
        expect(resultText(two)).toBe("second done");
        expect(two.every((m) => m.session_id === chat.id)).toBe(true);
        // The second exchange was sent the whole first one.
        const body = JSON.stringify(server.requests[2]?.body);
        for (const text of ["go", "first done", "again"]) expect(body).toContain(text);
        const stored = await sessionStore.getSessionMessages(chat.id!);
        expect(stored.filter((m) => m.type === "result")).toHaveLength(2);
      });
    } finally {
      await cleanup();
    }
  });

  it("sends made before any is iterated run in the order they were made, in one session", async () => {
    const script = { turns: [mockTurn.text("one"), mockTurn.text("two"), mockTurn.text("three")] };
    const { store: sessionStore, cleanup } = await open();
    try {
      await withMock(script, async (server) => {
        const agent = new Agent({ model: format.model, env: mockEnv(server), tools: [], sessionStore, cwd: dir });
        const chat = agent.session();
        const runs = [chat.send("a"), chat.send("b"), chat.send("c")];
        // Iterated last-first: each still waits for the sends made before it.
        const results = await Promise.all([...runs].reverse().map((run) => collect(run)));
        expect(results.map(resultText)).toEqual(["three", "two", "one"]);
        const prompts = (await sessionStore.getSessionMessages(chat.id!))
          .filter((m) => m.type === "user")
          .map((m) => (m.type === "user" ? m.message.content : ""));
        expect(prompts).toEqual(["a", "b", "c"]);
      });
    } finally {
      await cleanup();
    }
  });

  it("a plain second query on a busy session fails itself, naming the session and not our pid as a foreign holder", async () => {
    const { tool, running, open: finishTool } = gatedTool();
    const script = { turns: [mockTurn.toolUse("wait", {}), mockTurn.text("finished")] };
    const { store: sessionStore, cleanup } = await open();
    try {
      await withMock(script, async (server) => {
        const options = { model: format.model, env: mockEnv(server), tools: [tool], sessionStore, cwd: dir };
        const chat = new Agent(options).session();
        const first = collect(chat.send("go"));
        await running;
        const error = await collect(query({ prompt: "again", options: { ...options, resume: chat.id! } })).catch(
          (caught: unknown) => caught,
        );
        expect(isGyreError(error, "session_busy")).toBe(true);
        expect((error as Error).message).toBe(`Session ${chat.id} is in use by another run in this process`);
        finishTool();
        expect(resultText(await first)).toBe("finished");
      });
    } finally {
      await cleanup();
    }
  });
});

/** An async iterable the test feeds by hand. */
function inputQueue() {
  const items: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const push = (text: string) => {
    items.push({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
    } as SDKUserMessage);
    wake?.();
  };
  const close = () => {
    closed = true;
    wake?.();
  };
  async function* iterate(): AsyncGenerator<SDKUserMessage> {
    for (;;) {
      const next = items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (closed) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  return { push, close, iterable: iterate() };
}

describe("streaming input", () => {
  it("a message pushed while a tool runs is answered after the current exchange, in one loop", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const toolStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const wait = defineTool({
      name: "wait",
      description: "Waits.",
      inputSchema: z.object({}),
      readOnly: true,
      execute: async () => {
        started();
        await gate;
        return "waited";
      },
    });
    const script = {
      turns: [mockTurn.toolUse("wait", {}), mockTurn.text("first answer"), mockTurn.text("second answer")],
    };
    await withMock(script, async (server) => {
      const input = inputQueue();
      input.push("first question");
      const run = query({
        prompt: input.iterable,
        options: {
          model: FORMATS[0].model,
          env: mockEnv(server),
          tools: [wait],
          sessionStore: store,
          cwd: dir,
        },
      });
      const done = collect(run);
      await toolStarted;
      input.push("second question");
      input.close();
      release();
      const messages = await done;
      expect(messages.filter((m) => m.type === "system" && m.subtype === "init")).toHaveLength(1);
      expect(messages.filter((m) => m.type === "result").map((m) => (m.type === "result" ? m.result : ""))).toEqual([
        "first answer",
        "second answer",
      ]);
      expect(server.requests).toHaveLength(3);
      const last = JSON.stringify(server.requests[2]?.body);
      for (const text of ["first question", "waited", "first answer", "second question"]) expect(last).toContain(text);
      expect(JSON.stringify(server.requests[1]?.body)).not.toContain("second question");
      const stored = await store.getSessionMessages(run.sessionId);
      expect(stored.filter((m) => m.type === "user" && typeof m.message.content === "string").length).toBe(2);
    });
  });
});
