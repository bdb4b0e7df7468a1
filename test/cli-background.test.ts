import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, toolResults, withMock } from "./helpers.js";

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");

let home: string;
let project: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "gyre-cli-background-home-"));
  project = mkdtempSync(join(tmpdir(), "gyre-cli-background-project-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

describe("gyre run with a background subagent", () => {
  it("stream-json shows the background agent's messages tagged with the Agent call's id, before the result", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "look", prompt: "list files", subagent_type: "general-purpose", run_in_background: true },
          { id: "call_bg" },
        ),
        mockTurn.toolUse("AgentOutput", { task_id: "call_bg" }),
        mockTurn.text("The background agent found nothing."),
      ],
      routes: [
        {
          system: "You are an agent working on a task given to you by another agent.",
          turns: [mockTurn.toolUse("Glob", { pattern: "*" }), mockTurn.text("empty")],
        },
      ],
    };
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
      const tagged = messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === "call_bg");
      // With its Glob call's start.
      expect(tagged.map((m) => m.type)).toEqual(["assistant", "tool_progress", "user", "assistant"]);
      const parent = messages.filter((m) => !("parent_tool_use_id" in m) || m.parent_tool_use_id === null);
      const [launch, output] = toolResults(parent);
      expect(JSON.stringify(launch?.content)).toContain("task_id: call_bg");
      expect(JSON.stringify(output?.content)).toContain("<status>completed</status>");
      expect(JSON.stringify(output?.content)).toContain("empty");
      expect(messages.at(-1)).toMatchObject({ type: "result", result: "The background agent found nothing." });
    });
  });
});
