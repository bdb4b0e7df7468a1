// Issue 26, finding 5: a command the agent runs must not find the provider keys in any
// process's /proc/<pid>/environ — Gyre's own included. The built `gyre` runs as a real process
// against the scripted mock LLM, and its Bash call is the attack itself.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, FORMATS, runQuery, toolResults, withMock } from "./helpers.js";

const CLI = resolve("dist/bin/gyre.js");

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  return new Promise((done) => child.on("close", (code) => done({ code, stderr })));
}

describe.skipIf(process.platform !== "linux")("provider keys in /proc (issue 26, finding 5)", () => {
  it("gyre's own /proc/<pid>/environ and every process a command can read hold no key, yet the model gets it", async () => {
    const secret = `sk-ant-${randomUUID()}`;
    const probe = [
      // The shell's parent is the gyre process that runs the loop.
      `echo "parent:$(tr '\\0' ' ' < /proc/$PPID/cmdline)"`,
      `echo "parent-key:$(tr '\\0' '\\n' < /proc/$PPID/environ | grep -c '^ANTHROPIC_API_KEY=.')"`,
      // The finding's attack: every environment this user can read.
      `echo "holders:$(grep -l -a -F "$(printf '%s' '${secret}')" /proc/[0-9]*/environ 2>/dev/null | wc -l)"`,
    ].join("; ");
    const turns = [mockTurn.toolUse("Bash", { command: probe }), mockTurn.text("done")];
    await withMock({ turns }, async (mock) => {
      const ran = await run(["run", "--no-session-persistence", "--permission-mode", "bypassPermissions", "look"], {
        ...mock.env(),
        ANTHROPIC_API_KEY: secret,
      });
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
      expect(mock.requests[0]?.headers["x-api-key"]).toBe(secret);
      const result = JSON.stringify(mock.requests[1]?.body);
      expect(result).toContain("dist/bin/gyre.js");
      expect(result).toContain("parent-key:0");
      expect(result).toContain("holders:0");
    });
  });
});

describe("reads of /proc/<pid>/... under an allow rule, through the loop (issue 26, finding 5)", () => {
  it("asks (and so refuses without anyone to ask) however the path is spelled; /proc/cpuinfo still runs", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "gyre-proc-")));
    const attacks = [
      "grep -a -o 'ANTHROPIC_API_KEY=.*' /proc/[0-9]*/environ",
      "grep -a KEY /proc/self/../1/environ",
      "cat /proc/1/task/1/environ",
      "grep -a -r KEY /proc/1/cwd/",
    ];
    const turns = [
      ...attacks.map((command, i) => mockTurn.toolUse("Bash", { command }, { id: `call_${i}` })),
      mockTurn.toolUse("Bash", { command: "grep -c processor /proc/cpuinfo" }, { id: "call_ok" }),
      mockTurn.text("done"),
    ];
    try {
      await withMock({ turns }, async (mock) => {
        const messages = await runQuery(mock, FORMATS[0], "look", {
          cwd,
          allowedTools: ["Bash(grep:*)", "Bash(cat:*)"],
        });
        const results = toolResults(messages);
        expect(results).toHaveLength(attacks.length + 1);
        for (const result of results.slice(0, attacks.length)) {
          expect(result.is_error).toBe(true);
          expect(JSON.stringify(result.content)).toContain("another process's state in /proc");
        }
        expect(results.at(-1)?.is_error).toBeFalsy();
      });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("passEnv when the key is only in the run's env (as the gyre CLI hands it over)", () => {
  it("a listed key reaches commands from the run's env; an unlisted one does not", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "gyre-passenv-")));
    const command = 'echo "passed:${OPENAI_API_KEY:-none} withheld:${ANTHROPIC_API_KEY:-none}"';
    const turns = [mockTurn.toolUse("Bash", { command }), mockTurn.text("done")];
    expect(process.env.OPENAI_API_KEY).toBeUndefined();
    try {
      await withMock({ turns }, async (mock) => {
        const messages = await runQuery(mock, FORMATS[0], "look", {
          cwd,
          permissionMode: "bypassPermissions",
          passEnv: ["OPENAI_API_KEY"],
          env: { ...mock.env(), OPENAI_API_KEY: "sk-from-run-env", ANTHROPIC_API_KEY: "sk-unlisted" },
        });
        const output = JSON.stringify(toolResults(messages)[0]?.content);
        expect(output).toContain("passed:sk-from-run-env");
        expect(output).toContain("withheld:none");
      });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
