import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeTool } from "../../execute.js";
import type { ToolResult } from "../../tool.js";
import type { BashToolsOptions } from "./bash-options.js";
import { bashTool } from "./bash-tool.js";
import { isProcessAlive } from "./process-tree.js";
import { createTestToolContext, type TestToolContext, waitFor } from "./test-support.js";

const tempDir = () => mkdtempSync(join(tmpdir(), "gyre-bash-test-"));

function runBash(
  input: { command: string; timeout?: number },
  context: TestToolContext = createTestToolContext(),
  options: BashToolsOptions = {},
): Promise<ToolResult> {
  return bashTool(options).execute(input, context) as Promise<ToolResult>;
}

function pidsIn(file: string): number[] {
  return readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
}

async function expectAllDead(pids: number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0);
  await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), { what: `pids ${pids} to die` });
}

describe("Bash (foreground)", () => {
  it("returns the output of a command that succeeds", async () => {
    const result = await runBash({ command: "echo hello" });
    expect(result).toMatchObject({ content: "hello", isError: false, data: { exitCode: 0 } });
  });

  it("reports a non-zero exit as an error with its output and exit code", async () => {
    const result = await runBash({ command: "echo oops; exit 3" });
    expect(result).toMatchObject({ content: "oops\nExit code 3", isError: true, data: { exitCode: 3 } });
  });

  it("says so when a command prints nothing", async () => {
    expect((await runBash({ command: "true" })).content).toBe("(no output)");
  });

  it("interleaves stdout and stderr in the order they were written", async () => {
    const result = await runBash({
      command: "echo out1; echo err1 >&2; echo out2; echo err2 >&2; echo out3",
    });
    expect(result.content).toBe("out1\nerr1\nout2\nerr2\nout3");
  });

  it("keeps line numbers of shell errors right", async () => {
    const result = await runBash({ command: "echo a\nif then" });
    expect(result.content).toContain("line 2");
    expect(result.isError).toBe(true);
  });

  it("runs in the context's working directory", async () => {
    const dir = tempDir();
    const result = await runBash({ command: "pwd -P" }, createTestToolContext({ cwd: dir }));
    expect(result.content).toBe(execFileSync("pwd", ["-P"], { cwd: dir, encoding: "utf8" }).trim());
  });

  it("closes stdin, so a command reading it returns at once", async () => {
    const result = await runBash({ command: "cat; echo after-cat" });
    expect(result).toMatchObject({ content: "after-cat", isError: false });
  });

  it("disables pagers and prompts (git log in a fresh repo)", async () => {
    const dir = tempDir();
    const result = await runBash(
      {
        command:
          "git init -q . && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m first-commit && " +
          "git log && echo pager=$GIT_PAGER prompt=$GIT_TERMINAL_PROMPT",
      },
      createTestToolContext({ cwd: dir }),
    );
    expect(result.content).toContain("first-commit");
    expect(result.content).toContain("pager=cat prompt=0");
  });

  it("kills the whole process tree on timeout", async () => {
    const file = join(tempDir(), "pids");
    const result = await runBash({
      command: `echo $$ > ${file}; sleep 1000 & echo $! >> ${file}; sleep 1000 & echo $! >> ${file}; wait`,
      timeout: 1_500,
    });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("Command timed out after 1.5s");
    expect(result.data).toMatchObject({ timedOut: true });
    const pids = pidsIn(file);
    expect(pids).toHaveLength(3);
    await expectAllDead(pids);
  });

  it("stops a command that never ends when its timeout passes", async () => {
    const result = await runBash({ command: "echo started; while :; do :; done", timeout: 1_000 });
    expect(result).toMatchObject({ isError: true, data: { timedOut: true } });
    expect(result.content).toMatch(/^started\nCommand timed out/);
  });

  it("clamps a timeout above the maximum instead of rejecting it", async () => {
    const result = await runBash({ command: "echo ok", timeout: 10_000_000 });
    expect(result.content).toBe("ok");
  });

  it("SIGKILLs processes that ignore SIGTERM after the grace period", async () => {
    const file = join(tempDir(), "pids");
    const result = await runBash(
      { command: `trap '' TERM; echo $$ > ${file}; sleep 1000 & echo $! >> ${file}; wait`, timeout: 500 },
      createTestToolContext(),
      { killGraceMs: 100 },
    );
    expect(result.data).toMatchObject({ timedOut: true });
    await expectAllDead(pidsIn(file));
  });

  it("kills the whole process tree when the call is aborted", async () => {
    const file = join(tempDir(), "pids");
    const context = createTestToolContext();
    const running = runBash(
      {
        command: `echo $$ > ${file}; sleep 1000 & echo $! >> ${file}; sleep 1000 & echo $! >> ${file}; echo ready; wait`,
      },
      context,
      { progressIntervalMs: 10 },
    );
    await waitFor(() => context.progress.some((p) => (p as { lastLine: string }).lastLine === "ready"), {
      what: "the command to be ready",
    });
    context.controller.abort();
    const result = await running;
    expect(result).toMatchObject({ isError: true, data: { interrupted: true } });
    await expectAllDead(pidsIn(file));
  });

  it("reports progress with the latest output line while a command runs", async () => {
    const context = createTestToolContext();
    const running = runBash({ command: "echo first; echo second; sleep 1000" }, context, {
      progressIntervalMs: 10,
    });
    const progress = await waitFor(
      () => context.progress.find((p) => (p as { lastLine: string }).lastLine === "second"),
      { what: "progress" },
    );
    expect(progress).toMatchObject({ lastLine: "second", outputChars: 13 });
    context.controller.abort();
    await running;
  });

  it("returns when the shell exits even if a child it forked keeps the output open, and stops it", async () => {
    const file = join(tempDir(), "pids");
    const result = await runBash({ command: `(sleep 100 & echo $! > ${file}); echo done` });
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      "done\nNote: 1 process this command left running was stopped when it exited. " +
        "Use run_in_background for long-running processes.",
    );
    expect(result.data).toMatchObject({ processesStopped: 1 });
    await expectAllDead(pidsIn(file));
  });

  it("stops what a command left running when it exits, detached or in a new session", async () => {
    const file = join(tempDir(), "pids");
    const result = await runBash({
      command:
        `sleep 100 > /dev/null 2>&1 & echo $! > ${file}; setsid sleep 100 > /dev/null 2>&1 & echo $! >> ${file}; ` +
        `nohup sleep 100 > /dev/null 2>&1 & echo $! >> ${file}; echo done`,
    });
    expect(result.content).toMatch(/^done\nNote: 3 processes this command left running were stopped when it exited/);
    expect(result.isError).toBe(false);
    const pids = pidsIn(file);
    expect(pids).toHaveLength(3);
    // Checked at once: the call returns only after it verified they are gone.
    expect(pids.filter((pid) => isProcessAlive(pid))).toEqual([]);
  });

  it("keeps memory bounded for 50 MB of output and saves all of it to a file", async () => {
    const size = 50 * 1024 * 1024;
    const tool = bashTool();
    const result = await executeTool(
      tool,
      { command: `head -c ${size} /dev/zero | tr '\\0' a` },
      createTestToolContext(),
    );
    const content = result.content as string;
    expect(result.isError).toBe(false);
    expect(content.length).toBeLessThanOrEqual(30_000);
    const match = content.match(/\[(\d+) characters omitted; the full output \((\d+) characters\) is in (\S+)\]/);
    expect(match).not.toBeNull();
    expect(Number(match![2])).toBe(size);
    expect(statSync(match![3]!).size).toBe(size);
    expect(result.data).toMatchObject({ outputChars: size, outputPath: match![3] });
  });

  it("caps the output file, keeping head and tail, and says how much it cut", async () => {
    const context = createTestToolContext();
    const result = await runBash({ command: "seq 1 200000" }, context, { maxOutputFileBytes: 64 * 1024 });
    const path = (result.data as { outputPath: string }).outputPath;
    const file = readFileSync(path, "utf8");
    expect(file.length).toBe(64 * 1024);
    expect(file.startsWith("1\n2\n3\n")).toBe(true);
    expect(file.endsWith("199999\n200000\n")).toBe(true);
    expect(file).toMatch(
      /\n\.\.\. \[\d+ bytes of output cut here: this file keeps the first \d+ and the last 32768 of 1288895 bytes\]/,
    );
    expect(result.content).toMatch(
      /the output was 1288895 bytes, too long to keep whole: \S+ has its first \d+ and last 32768 bytes \(\d+ bytes cut\)/,
    );
    expect((result.data as { outputFileOmittedBytes: number }).outputFileOmittedBytes).toBeGreaterThan(1288895 - 65536);
    await context.session.dispose();
    expect(() => statSync(path)).toThrow();
  });

  it("does not give commands the provider API keys, unless passed through", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: "sk-ant-secret",
      OPENAI_API_KEY: "sk-openai-secret",
      OPENAI_COMPATIBLE_API_KEY: "sk-compat-secret",
      MY_PROVIDER_KEY: "sk-mine-secret",
      HARMLESS: "visible",
    });
    try {
      const command = "env | grep -E 'secret|HARMLESS' | sort";
      expect((await runBash({ command }, undefined, { secretEnv: ["MY_PROVIDER_KEY"] })).content).toBe(
        "HARMLESS=visible",
      );
      const passed = await runBash({ command }, undefined, { passEnv: ["ANTHROPIC_API_KEY"] });
      expect(passed.content).toBe("ANTHROPIC_API_KEY=sk-ant-secret\nHARMLESS=visible\nMY_PROVIDER_KEY=sk-mine-secret");
      const given = await runBash({ command }, undefined, { env: { OPENAI_API_KEY: "sk-given-secret" } });
      expect(given.content).toContain("OPENAI_API_KEY=sk-given-secret");
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it("reports a shell that cannot start as an error", async () => {
    const result = await runBash({ command: "echo hi" }, createTestToolContext({ cwd: "/no/such/dir" }));
    expect(result.isError).toBe(true);
    expect(result.content).toBe("Failed to start the shell: the working directory /no/such/dir does not exist");
  });
});
