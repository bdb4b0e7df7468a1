// Each denied call is sent as a system/permission_denied message as it happens, before the
// tool result the model gets, and the result still lists every denial.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

describe("system/permission_denied", () => {
  it("reports a call denied by a rule and one nobody could approve, each before its tool result", async () => {
    const cwd = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-denied-")));
    const turns = [
      mockTurn.of([
        { type: "tool_use", id: "toolu_rm", name: "Bash", input: { command: "rm -rf build" } },
        { type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: `${cwd}/a.txt`, content: "a" } },
      ]),
      mockTurn.text("Could not."),
    ];
    const messages = await withMock({ turns }, (server) =>
      runQuery(server, FORMATS[0], "clean up", {
        cwd,
        settings: { permissions: { deny: ["Bash(rm:*)"] } },
      }),
    );
    const denied = messages.filter((message) => message.type === "system" && message.subtype === "permission_denied");
    expect(denied).toEqual([
      expect.objectContaining({
        tool_use_id: "toolu_rm",
        tool_name: "Bash",
        tool_input: { command: "rm -rf build" },
        message: expect.stringContaining("Bash(rm:*)"),
      }),
      expect.objectContaining({ tool_use_id: "toolu_write", tool_name: "Write", message: expect.any(String) }),
    ]);
    const toolResults = messages.findIndex(
      (message) =>
        message.type === "user" &&
        Array.isArray(message.message.content) &&
        message.message.content.some((block) => block.type === "tool_result"),
    );
    expect(toolResults).toBeGreaterThan(0);
    expect(messages.indexOf(denied[1] as (typeof messages)[number])).toBeLessThan(toolResults);
    expect(resultOf(messages).permission_denials.map((denial) => denial.tool_use_id)).toEqual([
      "toolu_rm",
      "toolu_write",
    ]);
  });
});
