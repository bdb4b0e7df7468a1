import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SDKMessage, SessionTree } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, withMock } from "./helpers.js";

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");

let home: string;
let project: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "gyre-cli-agents-home-"));
  project = mkdtempSync(join(tmpdir(), "gyre-cli-agents-project-"));
  mkdirSync(join(home, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(home, ".claude", "agents", "scout.md"),
    "---\nname: scout\ndescription: Looks around the project\ntools: Glob\n---\nYou are scout. Report briefly.\n",
  );
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

describe("gyre run with subagents", () => {
  const script = {
    turns: [
      mockTurn.toolUse(
        "Agent",
        { description: "look", prompt: "list files", subagent_type: "scout" },
        { id: "call_a" },
      ),
      mockTurn.text("The scout found nothing."),
    ],
    routes: [{ system: "You are scout.", turns: [mockTurn.toolUse("Glob", { pattern: "*" }), mockTurn.text("empty")] }],
  };

  it("reads the user's agent files; stream-json shows the subagent's messages tagged with the call id", async () => {
    await withMock(script, async (server) => {
      const { stdout } = await run(
        process.execPath,
        [CLI, "run", "look around", "--output-format", "stream-json", "--cwd", project],
        { env: cliEnv({ ...server.env(), HOME: home }) },
      );
      const messages = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as SDKMessage);
      const tagged = messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === "call_a");
      // With its Glob call's start.
      expect(tagged.map((m) => m.type)).toEqual(["assistant", "tool_progress", "user", "assistant"]);
      expect(messages.at(-1)).toMatchObject({ type: "result", result: "The scout found nothing." });
      expect(server.requests.map((r) => r.route)).toEqual([undefined, 0, 0, undefined]);
    });
  });

  it("gyre sessions: list hides the subagent's session, show nests it under its Agent call, rm removes both", async () => {
    await withMock(script, async (server) => {
      const env = cliEnv({ ...server.env(), HOME: home });
      const gyre = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env })).stdout;
      const stream = await gyre("run", "look around", "--output-format", "stream-json", "--cwd", project);
      const parentId = (JSON.parse(stream.split("\n")[0] ?? "{}") as SDKMessage).session_id;

      const list = (await gyre("sessions", "list", "--cwd", project)).trim().split("\n");
      expect(list).toHaveLength(1);
      expect(list[0]).toContain(parentId);
      expect(list[0]).toContain("1 subagent");

      const tree = JSON.parse(await gyre("sessions", "show", parentId, "--json", "--cwd", project)) as SessionTree;
      expect(tree.session.id).toBe(parentId);
      expect(tree.subagents).toHaveLength(1);
      const child = tree.subagents[0]!;
      expect(child.session).toMatchObject({ parentId, parentToolUseId: "call_a", title: "look" });
      expect(child.messages.map((m) => m.type)).toEqual([
        "user",
        "assistant",
        "tool_progress",
        "user",
        "assistant",
        "result",
      ]);
      expect(tree.messages.some((m) => "parent_tool_use_id" in m && m.parent_tool_use_id !== null)).toBe(false);

      const text = (await gyre("sessions", "show", parentId, "--cwd", project)).split("\n");
      const call = text.findIndex((line) => line.startsWith("  [Agent]"));
      expect(call).toBeGreaterThan(0);
      // Under the call: the subagent's header and transcript, indented, before the call's result.
      expect(text.slice(call + 1, call + 5)).toEqual([
        `    ↳ subagent ${child.session.id}  completed, $${child.session.costUsd.toFixed(4)}  look`,
        "    > list files",
        '      [Glob] {"pattern":"*"}',
        "      ← Glob",
      ]);
      const result = text.findIndex((line) => line === "  ← Agent");
      expect(result).toBeGreaterThan(call + 4);
      expect(text.slice(call + 1, result).every((line) => line.startsWith("    "))).toBe(true);
      expect(text).toContain("The scout found nothing.");

      await gyre("sessions", "rm", parentId, "--cwd", project);
      await expect(gyre("sessions", "show", child.session.id, "--cwd", project)).rejects.toThrow(/No session/);
    });
  });

  it("text output shows only the parent's answer", async () => {
    await withMock(script, async (server) => {
      const { stdout } = await run(process.execPath, [CLI, "run", "look around", "--cwd", project], {
        env: cliEnv({ ...server.env(), HOME: home }),
      });
      expect(stdout.trim()).toBe("The scout found nothing.");
    });
  });
});
