// Issue 26, finding 1, for remote callers: `gyre serve` running Grep and Glob server-side and
// `gyre mcp serve --tools` offering them must leave out what the operator's Read rules deny,
// as a run does. (`gyre mcp serve` offers tools only: no resources or prompts to list files.)
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { withBuiltinToolsServer } from "./mcp-serve-client.js";
import { withServer } from "./serve-support.js";

const DENY = ["Read(./.env)", "Read(./sub/**)"];
const LEAKS = ["env-value", "sub-value", ".env", "sub/"];

let ws: string;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-guard-remote-")));
  mkdirSync(path.join(ws, "sub"));
  writeFileSync(path.join(ws, ".env"), "SECRET=env-value\n");
  writeFileSync(path.join(ws, "sub", "key.txt"), "SECRET=sub-value\n");
  writeFileSync(path.join(ws, "notes.txt"), "the SECRET is elsewhere\n");
});

afterEach(() => rmSync(ws, { recursive: true, force: true }));

const CALLS: Array<[string, Record<string, unknown>]> = [
  ["Grep", { pattern: "SECRET", output_mode: "content" }],
  ["Grep", { pattern: "SECRET", path: ".", glob: ".env", output_mode: "count" }],
  ["Grep", { pattern: "secret", glob: "**", "-i": true }],
  ["Glob", { pattern: "**/*" }],
  ["Glob", { pattern: ".*" }],
];

describe("gyre serve's server-side Grep and Glob", () => {
  it("give a remote caller nothing of what the Read rules deny", async () => {
    const turns = [...CALLS.map(([name, input]) => mockTurn.toolUse(name, input)), mockTurn.text("done")];
    await withServer(
      { turns },
      async ({ client, mock }) => {
        const response = await client().responses.create({ model: "anthropic/claude-sonnet-4-5", input: "Search." });
        const outputs = response.output.filter((item) => item.type === "function_call_output") as unknown as Array<{
          output: string;
          status: string;
        }>;
        expect(outputs.map((item) => item.status)).toEqual(CALLS.map(() => "completed"));
        expect(outputs.map((item) => item.output)).toEqual([
          "notes.txt:1:the SECRET is elsewhere",
          "No matches found",
          "Found 1 file\nnotes.txt",
          "notes.txt",
          "No files found",
        ]);
        // The call arguments name ".env"; what came back, and what the model was sent, must not.
        for (const leak of LEAKS) expect(outputs.map((item) => item.output).join("\n")).not.toContain(leak);
        const sent = JSON.stringify(mock.requests.map((request) => request.body));
        for (const leak of ["env-value", "sub-value", "sub/key.txt"]) expect(sent).not.toContain(leak);
      },
      { tools: ["Grep", "Glob"], workspace: ws, permissions: { deny: DENY } },
    );
  });
});

describe("gyre mcp serve --tools", () => {
  it("Grep and Glob called over MCP leave out what the server's Read rules deny", async () => {
    const query = { cwd: ws, disallowedTools: DENY, permissionMode: "default" as const };
    await withBuiltinToolsServer(query, async (client) => {
      const texts: string[] = [];
      for (const [name, args] of CALLS) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        texts.push(result.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
      }
      expect(texts).toEqual([
        "notes.txt:1:the SECRET is elsewhere",
        "No matches found",
        "Found 1 file\nnotes.txt",
        "notes.txt",
        "No files found",
      ]);
      const { resources } = await client.listResources().catch(() => ({ resources: [] }));
      expect(resources).toEqual([]);
    });
  });
});
