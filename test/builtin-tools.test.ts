import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultTools, type SDKMessage } from "../src/index.js";
import { ToolRegistry } from "../src/tools/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

describe("the built-in tool set", () => {
  it("offers Claude Code's tools, names and JSON Schemas as the model sees them", () => {
    const registry = new ToolRegistry(defaultTools({ cwd: "/" }));
    expect(registry.names()).toEqual([
      "Bash",
      "BashOutput",
      "KillShell",
      "Glob",
      "Grep",
      "Read",
      "Edit",
      "Write",
      "NotebookEdit",
      "WebFetch",
      "TodoWrite",
      "WebSearch",
      "AskUserQuestion",
      "ExitPlanMode",
    ]);
    expect(registry.definitions()).toMatchSnapshot();
  });
});

function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === "tool_result")
      : [],
  );
}

describe("bad input and edges through the loop", () => {
  const format = FORMATS[0];

  it("runs two Edits of one file in one turn in order, and survives every kind of bad call", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-edges-"));
    const file = join(cwd, "notes.txt");
    writeFileSync(file, "alpha\r\nbeta\r\ngamma\r\n");
    writeFileSync(join(cwd, "blob.bin"), Buffer.from([0, 1, 2, 3, 0, 255, 0, 0]));
    writeFileSync(join(cwd, "unread.txt"), "keep me\n");
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: file }),
        mockTurn.of([
          {
            type: "tool_use",
            name: "Edit",
            input: { file_path: file, old_string: "alpha", new_string: "ALPHA" },
          },
          {
            type: "tool_use",
            name: "Edit",
            input: { file_path: file, old_string: "beta", new_string: "BETA" },
          },
        ]),
        mockTurn.of([
          { type: "tool_use", name: "Read", input: { file_path: "relative/path.txt" } },
          { type: "tool_use", name: "Read", input: { file_path: join(cwd, "blob.bin") } },
          { type: "tool_use", name: "Read", input: { file_path: join(cwd, "..", "nope", "missing.txt") } },
          { type: "tool_use", name: "Grep", input: { pattern: "(unclosed", path: cwd } },
          { type: "tool_use", name: "Glob", input: { pattern: "**/*.nothing", path: cwd } },
          { type: "tool_use", name: "Read", input: { file_path: 42 } },
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: join(cwd, "unread.txt"), content: "clobber" },
          },
        ]),
        mockTurn.toolUse("Bash", { command: "sleep 30", timeout: 300 }),
        mockTurn.toolUse("Bash", { command: "head -c 200000 /dev/zero | tr '\\0' x" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "edit", {
        tools: ["Read", "Edit", "Write", "Grep", "Glob", "Bash"],
        cwd,
        permissionMode: "bypassPermissions",
      });
      const results = toolResults(messages);
      // Both edits applied, CRLF kept: mutating calls ran one after the other.
      expect(readFileSync(file, "utf8")).toBe("ALPHA\r\nBETA\r\ngamma\r\n");
      expect(results.slice(1, 3).map((r) => r.is_error)).toEqual([undefined, undefined]);
      const bad = results.slice(3, 10);
      expect(bad[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/absolute/i) });
      expect(bad[1]).toMatchObject({ is_error: true, content: expect.stringMatching(/binary/i) });
      expect(bad[2]).toMatchObject({
        is_error: true,
        content: expect.stringMatching(/not exist|no such|not found/i),
      });
      expect(bad[3]).toMatchObject({ is_error: true });
      expect(String(bad[4]?.content)).toMatch(/No files found/);
      expect(bad[5]).toMatchObject({
        is_error: true,
        content: expect.stringMatching(/InputValidationError/),
      });
      // Overwriting a file the session never read is refused, and the file is untouched.
      expect(bad[6]).toMatchObject({ is_error: true, content: expect.stringMatching(/read/i) });
      expect(readFileSync(join(cwd, "unread.txt"), "utf8")).toBe("keep me\n");
      const [timedOut, big] = results.slice(10);
      expect(timedOut).toMatchObject({ is_error: true, content: expect.stringMatching(/timed out/i) });
      expect(String(big?.content).length).toBeLessThanOrEqual(30_500);
      expect(String(big?.content)).toMatch(/truncated|characters/);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
    });
  });
});
