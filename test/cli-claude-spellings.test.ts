import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, mockEnv, requestedModel, withMock } from "./helpers.js";

// Claude Code habits work in `gyre run`: its camelCase flags and its model aliases.

const exec = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");
const cwd = mkdtempSync(join(tmpdir(), "gyre-spellings-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("gyre run with Claude Code's spellings", () => {
  it("takes --allowedTools, --disallowedTools and --model sonnet", async () => {
    const script = {
      turns: [mockTurn.toolUse("Bash", { command: "echo allowed-by-camel-case" }), mockTurn.text("Done.")],
    };
    await withMock(script, async (server) => {
      const { stdout } = await exec(
        process.execPath,
        [
          CLI,
          "run",
          "go",
          "--model",
          "sonnet",
          "--allowedTools",
          "Bash(echo:*)",
          "--disallowedTools=Write",
          "--cwd",
          cwd,
        ],
        { env: cliEnv(mockEnv(server)) },
      );
      expect(stdout.trim()).toBe("Done.");
      expect(requestedModel(server.requests[0]?.body)).toBe("claude-sonnet-5-5");
      // Allowed by the rule given as --allowedTools: it ran without a question.
      const sent = server.requests[1]?.body as { messages: unknown[]; tools: Array<{ name: string }> };
      expect(JSON.stringify(sent.messages.at(-1))).toContain('"content":"allowed-by-camel-case"');
      expect(sent.tools.map((tool) => tool.name)).not.toContain("Write");
    });
  });
});
