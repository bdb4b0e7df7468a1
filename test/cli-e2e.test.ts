import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startMockProcess } from "./mock-llm-process.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SDKMessage } from "../src/index.js";
import { startMockLLM } from "../src/testing/index.js";

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");

describe("gyre run against gyre mock-llm, as real processes", () => {
  let mock: { child: ChildProcess; baseURL: string };
  let workdir: string;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
    workdir = mkdtempSync(join(tmpdir(), "gyre-cli-"));
    const script = join(workdir, "script.json");
    writeFileSync(
      script,
      JSON.stringify({
        mode: "history",
        turns: [{ content: [{ type: "text", text: "The answer is 42." }] }],
      }),
    );
    mock = await startMockProcess(script);
  });

  afterAll(() => {
    mock?.child.kill();
  });

  const env = () => ({
    ...process.env,
    ANTHROPIC_API_KEY: "mock",
    ANTHROPIC_BASE_URL: mock.baseURL,
    OPENAI_API_KEY: "mock",
    OPENAI_BASE_URL: mock.baseURL,
  });

  it("prints one SDKMessage per line with --output-format stream-json", async () => {
    const { stdout } = await run(
      process.execPath,
      [CLI, "run", "What is 6*7?", "--output-format", "stream-json", "--cwd", workdir],
      {
        env: env(),
      },
    );
    const messages = stdout
      .trim()
      .split("\n")
      .map((line) => SDKMessage.parse(JSON.parse(line)));
    expect(messages.map((m) => m.type)).toEqual(["system", "assistant", "result"]);
    expect(messages.at(-1)).toMatchObject({
      type: "result",
      subtype: "success",
      result: "The answer is 42.",
    });
  });

  it("prints the final answer with --output-format text, and the result with json", async () => {
    const text = await run(process.execPath, [CLI, "run", "hi", "--model", "openai/gpt-5", "--cwd", workdir], {
      env: env(),
    });
    expect(text.stdout).toBe("The answer is 42.\n");
    const json = await run(process.execPath, [CLI, "run", "hi", "--output-format", "json", "--cwd", workdir], {
      env: env(),
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "result", subtype: "success", num_turns: 1 });
  });

  it("exits non-zero with a clear message when the API key is missing", async () => {
    const error = await run(process.execPath, [CLI, "run", "hi", "--cwd", workdir], {
      env: { PATH: process.env.PATH, ANTHROPIC_BASE_URL: mock.baseURL },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(error).toMatchObject({ code: 1, stderr: expect.stringContaining("ANTHROPIC_API_KEY") });
  });
});

describe("gyre run --loop-control asks the person and goes on", () => {
  it("sends the answer typed on stdin back to the model in the same session", async () => {
    const server = await startMockLLM({
      script: {
        turns: [
          {
            content: [
              {
                type: "tool_use",
                name: "ask_question",
                input: { question: "Which branch?", options: ["main", "dev"] },
              },
            ],
          },
          { content: [{ type: "tool_use", name: "task_completion", input: { result: "Deployed dev." } }] },
        ],
      },
    });
    try {
      const child = spawn(
        process.execPath,
        [CLI, "run", "deploy", "--loop-control", "--setting-sources", "", "--no-session-persistence"],
        {
          stdio: ["pipe", "pipe", "pipe"],
          env: { ...process.env, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: server.baseURL },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk) => (stdout += chunk));
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk;
        if (stderr.includes("Which branch?") && stderr.includes("> ")) child.stdin?.end("2\n");
      });
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(code).toBe(0);
      expect(stdout).toContain("Deployed dev.");
      // The answer (option 2) reached the model as the next user message.
      expect(JSON.stringify(server.requests[1]?.body)).toContain('"dev"');
    } finally {
      await server.close();
    }
  });
});

describe("gyre run reports a failed hook on stderr", () => {
  it("names the hook, says it blocked the call, and gives its stderr", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "gyre-cli-hook-"));
    mkdirSync(join(workdir, ".gyre"));
    writeFileSync(
      join(workdir, ".gyre", "settings.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "echo guard crashed >&2; exit 1" }] }] },
      }),
    );
    const server = await startMockLLM({
      script: {
        turns: [
          { content: [{ type: "tool_use", id: "toolu_touch", name: "Bash", input: { command: "touch made.txt" } }] },
          { content: [{ type: "text", text: "Could not." }] },
        ],
      },
    });
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [CLI, "run", "make the file", "--cwd", workdir, "--trust-project", "--permission-mode", "bypassPermissions"],
        { env: { ...process.env, HOME: workdir, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: server.baseURL } },
      );
      expect(stdout).toBe("Could not.\n");
      expect(stderr).toContain(
        'gyre: PreToolUse hook "echo guard crashed >&2; exit 1" failed (blocked): Hook command exited with 1: guard crashed',
      );
      expect(existsSync(join(workdir, "made.txt"))).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe("gyre run --defer-permissions pauses, and --resume --approve goes on", () => {
  it("exits 3 listing the call, refuses an answer for a call that does not wait, and runs it once approved", async () => {
    const workdir = mkdtempSync(join(tmpdir(), "gyre-cli-defer-"));
    const server = await startMockLLM({
      script: {
        turns: [
          { content: [{ type: "tool_use", id: "toolu_touch", name: "Bash", input: { command: "touch made.txt" } }] },
          { content: [{ type: "text", text: "Made it." }] },
        ],
      },
    });
    const gyre = (args: string[]) =>
      run(process.execPath, [CLI, "run", ...args, "--cwd", workdir, "--setting-sources", ""], {
        env: { ...process.env, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: server.baseURL },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    try {
      const paused = await gyre(["make the file", "--defer-permissions", "--output-format", "json"]);
      expect(paused.code).toBe(3);
      const result = JSON.parse(paused.stdout);
      expect(result).toMatchObject({
        subtype: "success",
        terminal_reason: "requires_action",
        pending_tool_calls: [
          { kind: "approval", id: "toolu_touch", name: "Bash", input: { command: "touch made.txt" } },
        ],
      });
      expect(paused.stderr).toContain(
        `go on with: node ${realpathSync(CLI)} run --resume ${result.session_id} --approve toolu_touch`,
      );
      expect(existsSync(join(workdir, "made.txt"))).toBe(false);

      // An approval for a call that does not wait is refused, and changes nothing.
      const wrong = await gyre(["--resume", result.session_id, "--approve", "toolu_other"]);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain("resume_mismatch");
      expect(server.requests).toHaveLength(1);

      const done = await gyre(["--resume", result.session_id, "--approve", "toolu_touch"]);
      expect(done).toMatchObject({ code: 0, stdout: "Made it.\n" });
      expect(existsSync(join(workdir, "made.txt"))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
