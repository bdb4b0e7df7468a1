import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, runQuery, withMock } from "./helpers.js";

// Issue 32, row 11: stored messages carry what OpenCode's do — the agent that spoke, the paths
// the run worked in, the model as provider and id, and the output's reasoning tokens.

const [anthropic, responses] = FORMATS;

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-message-fields-"));
  writeFileSync(join(dir, "notes.txt"), "notes\n");
  store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("stored messages (row 11)", () => {
  it("carry the agent, the paths, the model as provider and id, and the reasoning tokens", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "ask scout", prompt: "look", subagent_type: "scout" },
          { id: "call_scout", usage: { input_tokens: 50, output_tokens: 30, reasoning_tokens: 12 } },
        ),
        mockTurn.text("done", { usage: { input_tokens: 60, output_tokens: 5 } }),
      ],
      routes: [
        {
          system: "You are scout.",
          turns: [mockTurn.text("seen", { usage: { output_tokens: 9, reasoning_tokens: 4 } })],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, responses, "go", {
        cwd: dir,
        sessionStore: store,
        agents: { scout: { description: "The scout.", prompt: "You are scout." } },
      });
      const sessionId = messages[0]?.session_id ?? "";
      const path = { cwd: dir, root: realpathSync(dir) };
      const stored = await store.getMessages(sessionId);
      const [first, last] = stored.filter((message) => message.role === "assistant");
      expect(first).toMatchObject({ providerId: "openai", modelId: "gpt-5", reasoningTokens: 12, path });
      expect(first?.agent).toBeUndefined();
      // The provider reported none apart: zero, as it said.
      expect(last).toMatchObject({ providerId: "openai", modelId: "gpt-5", reasoningTokens: 0 });
      expect(stored.find((message) => message.role === "user")?.path).toEqual(path);

      const [child] = await store.listSessions({ parentId: sessionId, subagents: "only" });
      const [scout] = (await store.getMessages(child?.id ?? "")).filter((message) => message.role === "assistant");
      expect(scout).toMatchObject({ agent: "scout", providerId: "openai", reasoningTokens: 4 });
    });
  });

  it("leave reasoning tokens out where the provider does not report them apart (Anthropic)", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", { cwd: dir, sessionStore: store });
      const [answer] = (await store.getMessages(messages[0]?.session_id ?? "")).filter((m) => m.role === "assistant");
      expect(answer).toMatchObject({ providerId: "anthropic", modelId: "claude-sonnet-4-5" });
      expect(answer?.reasoningTokens).toBeUndefined();
    });
  });

  it("name the agent the main thread runs as, and the one a handoff gave it to", async () => {
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [mockTurn.toolUse("transfer_to_billing", {})] },
        { system: "You are billing.", turns: [mockTurn.text("(unused)"), mockTurn.text("Refunded.")] },
      ],
    };
    const agent = (name: string, extra: object = {}) => ({
      description: `The ${name}.`,
      prompt: `You are ${name}.`,
      ...extra,
    });
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "charged twice", {
        cwd: dir,
        sessionStore: store,
        agent: "triage",
        agents: { triage: agent("triage", { handoffs: ["billing"] }), billing: agent("billing") },
      });
      const stored = await store.getMessages(messages[0]?.session_id ?? "");
      expect(stored.filter((m) => m.role === "assistant").map((m) => m.agent)).toEqual(["triage", "billing"]);
    });
  });
});
