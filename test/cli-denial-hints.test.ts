// A call nobody can be asked about is denied with what to do about it where the person is:
// `gyre run` and `gyre mcp serve` name their flags, the settings file and `gyre trust`, never
// the library's "no canUseTool callback". The built `gyre` as a real process.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";

const CLI = resolve("dist/bin/gyre.js");

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
});

/** A project folder and a home of its own (no trust decision or user setting of the developer's). */
function folders(): { cwd: string; home: string } {
  return {
    cwd: realpathSync(mkdtempSync(join(tmpdir(), "gyre-hint-"))),
    home: mkdtempSync(join(tmpdir(), "gyre-hint-home-")),
  };
}

/** `gyre run ARGS` against `script`; resolves with its exit code and output. */
async function gyreRun(
  script: MockScript,
  args: string[],
  home: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const server = await startMockLLM({ script });
  try {
    const child = spawn(process.execPath, [CLI, "run", ...args], {
      env: cliEnv({ HOME: home, ...server.env() }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on("close", done));
    return { code, stdout, stderr };
  } finally {
    await server.close();
  }
}

describe("a denial nobody could be asked about says what to do", () => {
  it("gyre run names --allowed-tools with the rule, the settings file and gyre trust; following it works", async () => {
    const { cwd, home } = folders();
    // The folder's own allow rule would do, but the folder is not trusted.
    mkdirSync(join(cwd, ".gyre"));
    writeFileSync(
      join(cwd, ".gyre", "settings.json"),
      JSON.stringify({ permissions: { allow: ["Bash(touch made.txt)"] } }),
    );
    const script = { turns: [mockTurn.toolUse("Bash", { command: "touch made.txt" }), mockTurn.text("Done.")] };
    const denied = await gyreRun(script, ["make it", "--cwd", cwd], home);
    expect(denied.code).toBe(0);
    const line = denied.stderr.split("\n").find((text) => text.startsWith("gyre: Bash denied:")) ?? "";
    expect(line).toContain(
      `and no one can be asked. To allow it, run again with --allowed-tools "Bash(touch made.txt)"`,
    );
    expect(line).toContain("permissions.allow in .gyre/settings.json");
    expect(line).toContain(`gyre trust ${cwd}`);
    expect(denied.stderr).not.toContain("canUseTool");
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);

    // What the hint says works.
    const allowed = await gyreRun(script, ["make it", "--cwd", cwd, "--allowed-tools", "Bash(touch made.txt)"], home);
    expect(allowed.stderr).not.toContain("denied");
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
  });

  it("gyre run in dontAsk mode: the same advice, and no gyre trust where nothing was ignored", async () => {
    const { cwd, home } = folders();
    const outside = mkdtempSync(join(tmpdir(), "gyre-hint-outside-"));
    const script = {
      turns: [mockTurn.toolUse("Write", { file_path: join(outside, "x.txt"), content: "x" }), mockTurn.text("Done.")],
    };
    const denied = await gyreRun(script, ["write it", "--cwd", cwd, "--permission-mode", "dontAsk"], home);
    const line = denied.stderr.split("\n").find((text) => text.startsWith("gyre: Write denied:")) ?? "";
    // Outside the workspace a rule would not do: the folder is what is missing.
    expect(line).toContain(
      `dontAsk mode denies instead of asking. To allow it, run again with --add-dir ${realpathSync(outside)}.`,
    );
    expect(line).not.toContain("--allowed-tools");
    expect(line).not.toContain("gyre trust");
    expect(existsSync(join(outside, "x.txt"))).toBe(false);
  });

  it("gyre mcp serve --tools names its own flags", async () => {
    const { cwd, home } = folders();
    const client = new Client({ name: "gyre-test", version: "1.0.0" });
    const env = cliEnv({ HOME: home });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "mcp", "serve", "--tools", "--cwd", cwd, "--no-session-persistence"],
        env: Object.fromEntries(
          Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
        ),
        stderr: "ignore",
      }),
    );
    try {
      const result = (await client.callTool({
        name: "Bash",
        arguments: { command: "touch made.txt" },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      expect(text).toContain('To allow it, start gyre mcp serve with --allowed-tools "Bash(touch made.txt)"');
      expect(text).not.toContain("canUseTool");
      expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
