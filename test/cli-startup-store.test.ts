// `gyre run` starts faster because a new session's SQLite store (the default one) is opened
// only once the model starts answering the first request. These tests pin what that must not change:
// every message stored, in order; files checkpointed; up-front errors still up front.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import type { SDKMessage } from "../src/index.js";
import { query } from "../src/agents/index.js";
import type { Query } from "../src/run/index.js";
import { getSessionMessages, listSessions, rewindFiles } from "../src/sessions/index.js";
import { mockFault, mockTurn, startMockLLM } from "../src/testing/index.js";
import { FORMATS, mockEnv, resultOf, withMock } from "./helpers.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-startup-store-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function kinds(messages: readonly SDKMessage[]): string[] {
  return messages.map((m) => (m.type === "system" ? `system:${m.subtype}` : m.type));
}

describe("a new session in the default SQLite store", () => {
  it("stores every message in order, init first, and checkpoints edited files", async () => {
    const file = join(dir, "a.txt");
    writeFileSync(file, "original\n");
    const script = {
      turns: [mockTurn.toolUse("Write", { file_path: file, content: "changed\n" }), mockTurn.text("done")],
    };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "edit the file",
        options: {
          model: FORMATS[0].model,
          env: mockEnv(server),
          cwd: dir,
          tools: ["Write"],
          permissionMode: "bypassPermissions",
        },
      });
      const messages = await drain(q);
      expect(resultOf(messages).subtype).toBe("success");

      const stored = await getSessionMessages(q.sessionId, { cwd: dir });
      // Stored as yielded, with the prompt (never yielded) right after init.
      expect(kinds(stored)).toEqual(["system:init", "user", ...kinds(messages.slice(1))]);
      expect(stored.map((m) => m.uuid)).toEqual([
        messages[0]!.uuid,
        stored[1]!.uuid,
        ...messages.slice(1).map((m) => m.uuid),
      ]);

      await rewindFiles(q.sessionId, messages.find((m) => m.type === "assistant")!.uuid, { cwd: dir });
      expect(readFileSync(file, "utf8")).toBe("original\n");
    });
  });

  it("stores what came before the first answer when the run is interrupted during that call", async () => {
    let q: Query | undefined;
    const server = await startMockLLM({
      script: { turns: [mockTurn.text("too late", { delayMs: 60_000 })] },
      onRequest: () => void q?.interrupt(),
    });
    try {
      q = query({ prompt: "wait", options: { model: FORMATS[0].model, env: mockEnv(server), cwd: dir, tools: [] } });
      const messages = await drain(q);
      expect(resultOf(messages).terminal_reason).toBe("interrupted");
      expect(kinds(await getSessionMessages(q.sessionId, { cwd: dir }))).toEqual(["system:init", "user", "result"]);
    } finally {
      await server.close();
    }
  });

  it("stores the init message of a caller that stops reading right after it", async () => {
    await withMock({ turns: [mockTurn.text("unread")] }, async (server) => {
      const q = query({
        prompt: "hi",
        options: { model: FORMATS[0].model, env: mockEnv(server), cwd: dir, tools: [] },
      });
      for await (const message of q) {
        expect(message.type).toBe("system");
        break;
      }
      expect(kinds(await getSessionMessages(q.sessionId, { cwd: dir }))).toEqual(["system:init"]);
    });
  });

  it("stores a run whose model call fails", async () => {
    const script = { turns: [mockTurn.text("never", { faults: [mockFault.http(400, "bad request")] })] };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "fail",
        options: { model: FORMATS[0].model, env: mockEnv(server), cwd: dir, tools: [] },
      });
      const messages = await drain(q);
      expect(resultOf(messages).is_error).toBe(true);
      expect(kinds(await getSessionMessages(q.sessionId, { cwd: dir }))).toEqual(["system:init", "user", "result"]);
    });
  });

  it("is not created by a run that fails before its first message (no API key)", async () => {
    const error = await drain(query({ prompt: "hi", options: { model: FORMATS[0].model, env: {}, cwd: dir } })).catch(
      (e: unknown) => e,
    );
    expect(isGyreError(error)).toBe(true);
    expect(await listSessions({ cwd: dir })).toEqual([]);
  });

  it("is refused before any request when .gyre/sessions.db is not a database", async () => {
    mkdirSync(join(dir, ".gyre"));
    writeFileSync(join(dir, ".gyre", "sessions.db"), "not a database ".repeat(100));
    await withMock({ turns: [mockTurn.text("never")] }, async (server) => {
      const error = await drain(
        query({ prompt: "x", options: { model: FORMATS[0].model, env: mockEnv(server), cwd: dir, tools: [] } }),
      ).catch((e: unknown) => e);
      expect(isGyreError(error, "session_store_error")).toBe(true);
      expect(server.requests).toHaveLength(0);
    });
  });

  it("fails the run with a session_store_error when the file only looks like a database", async () => {
    mkdirSync(join(dir, ".gyre"));
    const path = join(dir, ".gyre", "sessions.db");
    writeFileSync(path, Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4096, 7)]));
    await withMock({ turns: [mockTurn.text("answer")] }, async (server) => {
      const error = await drain(
        query({ prompt: "x", options: { model: FORMATS[0].model, env: mockEnv(server), cwd: dir, tools: [] } }),
      ).catch((e: unknown) => e);
      expect(isGyreError(error, "session_store_error")).toBe(true);
      expect((error as Error).message).toContain(path);
    });
    expect(existsSync(path)).toBe(true);
  });
});

async function drain(q: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  return messages;
}
