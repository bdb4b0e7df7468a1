import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
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
      expect(tagged.map((m) => m.type)).toEqual(["assistant", "user", "assistant"]);
      expect(messages.at(-1)).toMatchObject({ type: "result", result: "The scout found nothing." });
      expect(server.requests.map((r) => r.route)).toEqual([undefined, 0, 0, undefined]);
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
