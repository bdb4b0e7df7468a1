import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, isGyreError, type SDKMessage } from "../src/index.js";
import { query } from "../src/agents/index.js";
import { INTERRUPTED_TOOL_RESULT, openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { calculator, mockEnv, withMock } from "./helpers.js";
import { compiledChildren, hangingQueryScript, killHard } from "./sessions-child.js";

// A run whose process died (kill -9) goes on in another process with `continueRun`, from its
// last committed step: a stored answer of the model is never requested again, a call that was
// running runs again only when its tool is idempotent, and is otherwise answered as interrupted.

const children = compiledChildren();

/** `probe` hangs in the child (the process that dies) and answers at once in the test's process. */
const PROBE_IN_CHILD = `
  const calculator = defineTool({
    name: "calculator",
    description: "Evaluate a + b.",
    inputSchema: z.object({ a: z.number(), b: z.number(), op: z.enum(["+", "-", "*", "/"]) }),
    readOnly: true,
    execute: ({ a, b }) => { process.stdout.write("calculated\\n"); return String(a + b); },
  });
  const probe = defineTool({
    name: "probe",
    description: "Reads a sensor.",
    inputSchema: z.object({}),
    readOnly: true,
    idempotent: ${"${IDEMPOTENT}"},
    execute: () => { setInterval(() => {}, 1 << 30); process.stdout.write("tool-started\\n"); return new Promise(() => {}); },
  });`;

function childScript(idempotent: boolean): string {
  return hangingQueryScript({
    prompt: "add 2 and 3, then probe",
    tools: "[calculator, probe]",
    setup: PROBE_IN_CHILD.replace("${IDEMPOTENT}", String(idempotent)),
  });
}

describe("continueRun: a run taken over after its process was killed", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gyre-continue-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `continueRun` on the session in the test's own process, with `probe` answering at once. */
  async function continueIn(server: MockLLMServer, store: SessionStore, session: string, idempotent: boolean) {
    const probes: string[] = [];
    const probe = defineTool({
      name: "probe",
      description: "Reads a sensor.",
      inputSchema: z.object({}),
      readOnly: true,
      idempotent,
      execute: () => {
        probes.push("ran");
        return "21 degrees";
      },
    });
    const messages: SDKMessage[] = [];
    const run = query({
      prompt: "",
      options: {
        model: "anthropic/claude-sonnet-4-5",
        env: mockEnv(server),
        tools: [calculator, probe],
        sessionStore: store,
        resume: session,
        continueRun: true,
        cwd: dir,
      },
    });
    for await (const message of run) messages.push(message);
    return { messages, probes };
  }

  it.each([
    { idempotent: true, seen: "21 degrees", runs: 1 },
    { idempotent: false, seen: INTERRUPTED_TOOL_RESULT, runs: 0 },
  ])(
    "goes on from the call that was running (idempotent: $idempotent) without asking the model again",
    async ({ idempotent, seen, runs }) => {
      const script = {
        turns: [
          mockTurn.toolUse("calculator", { a: 2, b: 3, op: "+" }, { id: "toolu_calc" }),
          mockTurn.toolUse("probe", {}, { id: "toolu_probe" }),
          mockTurn.text("Taken over."),
        ],
      };
      await withMock(script, async (server) => {
        const db = join(dir, `tools-${idempotent}.db`);
        const session = `tools-${idempotent}`;
        const env = { DB: db, BASE_URL: server.baseURL, SESSION: session, CWD: dir };
        await killHard(await children.start(childScript(idempotent), env, "tool-started"));
        expect(server.requests).toHaveLength(2);
        const store = openSqliteSessionStore({ path: db });
        try {
          const { messages, probes } = await continueIn(server, store, session, idempotent);
          expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Taken over." });
          expect(probes).toHaveLength(runs);
          // One request more: the two answers the dead process stored were not asked for again.
          expect(server.requests).toHaveLength(3);
          const sent = JSON.stringify(server.requests[2]?.body);
          expect(sent).toContain('"5"');
          expect(sent).toContain(seen);
          expect(sent).not.toContain(idempotent ? INTERRUPTED_TOOL_RESULT : "21 degrees");
          // The probe's result is stored, once, in the turn of the answer that called it.
          const stored = await store.getSessionMessages(session);
          const results = stored.flatMap((m) =>
            m.type === "user" && Array.isArray(m.message.content)
              ? m.message.content.filter((b) => b.type === "tool_result" && b.tool_use_id === "toolu_probe")
              : [],
          );
          expect(results).toHaveLength(1);
          expect(stored.at(-1)?.type).toBe("result");
        } finally {
          await store.close();
        }
      });
    },
  );

  it("asks the model again for the answer that was streaming when the process died, and only that one", async () => {
    // Sequential: the request sent again has the same history, and must get the next turn.
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("calculator", { a: 2, b: 3, op: "+" }, { id: "toolu_calc" }),
        // Streams for ten minutes: the child is killed while it does.
        mockTurn.text("never finished", { chunkDelayMs: 600_000 }),
        mockTurn.text("The sum is 5."),
      ],
    };
    await withMock(script, async (server) => {
      const db = join(dir, "model.db");
      const env = { DB: db, BASE_URL: server.baseURL, SESSION: "model-1", CWD: dir };
      const child = await children.start(childScript(false), env, "calculated");
      await waitFor(() => server.requests.length === 2);
      await killHard(child);
      const store = openSqliteSessionStore({ path: db });
      try {
        const { messages } = await continueIn(server, store, "model-1", false);
        expect(messages.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "The sum is 5." });
        expect(server.requests).toHaveLength(3);
        // The same history as the request that was cut: the tool result was committed before it.
        expect(messagesOf(server.requests[2]?.body)).toEqual(messagesOf(server.requests[1]?.body));
      } finally {
        await store.close();
      }
    });
  });

  it("refuses a session whose run ended, and a prompt, changing nothing", async () => {
    await withMock({ turns: [mockTurn.text("Done.")] }, async (server) => {
      const store = openSqliteSessionStore({ path: join(dir, "ended.db") });
      try {
        const options = { model: "anthropic/claude-sonnet-4-5", env: mockEnv(server), sessionStore: store, cwd: dir };
        for await (const _ of query({ prompt: "hi", options: { ...options, sessionId: "ended-1" } })) void _;
        const before = await store.getSessionMessages("ended-1");
        const ended = await drainError(
          query({ prompt: "", options: { ...options, resume: "ended-1", continueRun: true } }),
        );
        expect(ended).toMatchObject({ code: "resume_mismatch" });
        expect(ended.message).toContain("its last run ended");
        expect(() => query({ prompt: "more", options: { ...options, resume: "ended-1", continueRun: true } })).toThrow(
          /continueRun takes no prompt/,
        );
        expect(() => query({ prompt: "", options: { ...options, continueRun: true } })).toThrow(/resume/);
        expect(await store.getSessionMessages("ended-1")).toEqual(before);
        expect(server.requests).toHaveLength(1);
      } finally {
        await store.close();
      }
    });
  });
});

function messagesOf(body: unknown): unknown {
  return (body as { messages: unknown }).messages;
}

async function drainError(run: AsyncIterable<unknown>): Promise<Error & { code?: string }> {
  try {
    for await (const _ of run) void _;
  } catch (error) {
    if (isGyreError(error)) return error;
    throw error;
  }
  throw new Error("the run did not fail");
}

/** Polls (bounded) until `done` holds. */
async function waitFor(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
