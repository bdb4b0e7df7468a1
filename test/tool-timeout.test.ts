import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { withBuiltinToolsServer } from "./mcp-serve-client.js";

// The loop and `gyre mcp serve --tools` run a call through the same pipeline: `toolTimeoutMs`
// stops a call that runs too long in both, with the same error the model reads.
const TIMEOUT_MS = 300;
const SLOW = { command: "sleep 5" };
const TIMED_OUT = `Bash timed out after ${TIMEOUT_MS} ms and was stopped.`;

describe("toolTimeoutMs", () => {
  it("stops a run's call that runs too long", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-timeout-"));
    const script = { turns: [mockTurn.toolUse("Bash", SLOW), mockTurn.text("done")] };
    await withMock(script, async (mock) => {
      const messages = await runQuery(mock, FORMATS[0], "wait", {
        cwd,
        tools: ["Bash"],
        allowedTools: ["Bash(sleep:*)"],
        toolTimeoutMs: TIMEOUT_MS,
      });
      const [result] = toolResults(messages);
      expect(result?.is_error).toBe(true);
      expect(String(result?.content)).toContain(TIMED_OUT);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
    });
  });

  it("stops a call of gyre mcp serve --tools that runs too long", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-timeout-"));
    const query = { cwd, allowedTools: ["Bash(sleep:*)"], toolTimeoutMs: TIMEOUT_MS };
    await withBuiltinToolsServer(query, async (client) => {
      const result = (await client.callTool({ name: "Bash", arguments: SLOW })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: "text", text: `Error: ${TIMED_OUT}` }]);
    });
  });
});
