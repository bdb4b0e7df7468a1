import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { AgentSession, type PermissionRequest } from "../src/tui/index.js";
import { withMock } from "./helpers.js";

/** An AgentSession against the mock, with hooks to wait for what it reports. */
function sessionFor(env: Record<string, string>, cwd: string) {
  const messages: SDKMessage[] = [];
  const waiters: Array<() => void> = [];
  let permission: PermissionRequest | undefined;
  const notify = () => waiters.splice(0).forEach((wake) => wake());
  const session = new AgentSession(
    { cwd, env, allowedTools: ["Bash"], settingSources: [] },
    {
      onMessage: (message) => {
        messages.push(message);
        notify();
      },
      onPermission: (request) => {
        permission = request;
        notify();
      },
      onIdle: notify,
    },
  );
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise<void>((wake) => waiters.push(wake));
  };
  return { session, messages, until, permission: () => permission };
}

describe("AgentSession: the interactive agent's conversation with the loop", () => {
  it("after an interrupt, the next prompt resumes the same session with its history", async () => {
    const script = { turns: [mockTurn.toolUse("Bash", { command: "sleep 30" }), mockTurn.text("Resumed.")] };
    await withMock(script, async (server) => {
      const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-session-"));
      const { session, messages, until } = sessionFor(server.env(), cwd);
      session.send("wait");
      await until(() => messages.some((m) => m.type === "tool_progress"));
      const firstId = session.sessionId;
      await session.interrupt();
      expect(session.busy).toBe(false);
      const interrupted = messages.find((m) => m.type === "result");
      expect(interrupted).toMatchObject({ terminal_reason: "interrupted" });
      session.send("go on");
      await until(() => messages.filter((m) => m.type === "result").length === 2);
      expect(messages.at(-1)).toMatchObject({ type: "result", result: "Resumed." });
      expect(session.sessionId).toBe(firstId);
      expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("wait");
      expect(session.costUsd).toBeGreaterThan(0);
      await session.close();
    });
  });

  it("asks through onPermission and denies a waiting call when interrupted", async () => {
    const script = { turns: [mockTurn.toolUse("Write", { file_path: "/etc/x", content: "" }), mockTurn.text("never")] };
    await withMock(script, async (server) => {
      const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-session-"));
      const { session, until, permission, messages } = sessionFor(server.env(), cwd);
      session.send("write it");
      await until(() => permission() !== undefined);
      expect(permission()).toMatchObject({ toolName: "Write" });
      await session.interrupt();
      expect(permission()).toBeUndefined();
      expect(messages.at(-1)).toMatchObject({ type: "result", terminal_reason: "interrupted" });
      expect(server.requests).toHaveLength(1);
    });
  });
});
