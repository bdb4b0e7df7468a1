// Print mode on a par with `claude -p`: the built `gyre` as a real process against the
// scripted mock LLM — help and option errors, the prompt from stdin, claude's flags,
// stream-json input, and what lands on stderr.
import { spawn, type StdioOptions } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SDKMessage } from "../src/index.js";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";

const CLI = resolve("dist/bin/gyre.js");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface GyreRun {
  /** stdin of the child: "socket" is Node's pipe, left open and never written (as a test harness leaves it). */
  stdin?: "socket" | "ignore" | number;
  /** Text piped through a shell pipe (a FIFO), as `printf … | gyre …` does. */
  pipe?: string;
  env?: Record<string, string>;
  /** Lines written to a socket stdin, which is then closed. */
  lines?: string[];
}

/** Runs the built gyre and collects its output; stdin as asked. */
function gyre(args: string[], run: GyreRun = {}): Promise<Ran> {
  const env = cliEnv(run.env);
  const child =
    run.pipe === undefined
      ? spawn(process.execPath, [CLI, ...args], { env, stdio: [stdinOf(run), "pipe", "pipe"] as StdioOptions })
      : spawn("sh", ["-c", 'printf %s "$GYRE_TEST_INPUT" | "$0" "$@"', process.execPath, CLI, ...args], {
          env: { ...env, GYRE_TEST_INPUT: run.pipe },
          stdio: ["ignore", "pipe", "pipe"],
        });
  if (run.lines) child.stdin?.end(run.lines.map((line) => `${line}\n`).join(""));
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

function stdinOf(run: GyreRun): "pipe" | "ignore" | number {
  if (run.stdin === undefined || run.stdin === "socket") return "pipe";
  return run.stdin;
}

/** The text of every user message the model was sent, request by request. */
function userTexts(server: MockLLMServer): string[][] {
  return server.requests.map((request) => {
    const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    return messages
      .filter((message) => message.role === "user")
      .flatMap((message) =>
        typeof message.content === "string"
          ? [message.content]
          : (message.content as Array<{ type: string; text?: string }>).flatMap((block) =>
              block.type === "text" && block.text !== undefined ? [block.text] : [],
            ),
      );
  });
}

function systemPrompt(server: MockLLMServer, index = 0): string {
  return JSON.stringify((server.requests[index]?.body as { system?: unknown }).system);
}

let workdir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  workdir = mkdtempSync(join(tmpdir(), "gyre-print-"));
});

/** Flags that keep a run to this test: no settings files of the machine, no stored session. */
const ISOLATED = ["--setting-sources", "", "--no-session-persistence"];

describe("help and wrong options", () => {
  it.each([
    [["run", "--help"], "Usage: gyre run"],
    [["run", "-h"], "Usage: gyre run"],
    [["-p", "--help"], "Usage: gyre run"],
    [["help", "run"], "Usage: gyre run"],
    [["sessions", "--help"], "Usage: gyre sessions list"],
    [["trust", "-h"], "Usage: gyre trust"],
    [["mock-llm", "--help"], "Usage: gyre mock-llm"],
    [["serve", "--help"], "Usage: gyre serve"],
    [["ui", "--help"], "Usage: gyre ui"],
    [["doctor", "--help"], "Usage: gyre doctor"],
    [["mcp", "add", "--help"], "usage:\n  gyre mcp list"],
    [["mcp", "serve", "--help"], "Usage: gyre mcp serve"],
    [["mcp", "auth", "--help"], "usage: gyre mcp auth"],
    [["--help"], "gyre — an agent runtime"],
  ])("gyre %j prints that command's help and exits 0", async (args, start) => {
    const ran = await gyre(args, { stdin: "ignore" });
    expect(ran).toMatchObject({ code: 0, stderr: "" });
    expect(ran.stdout.startsWith(start)).toBe(true);
  });

  it("documents every option of run in its help", async () => {
    const { RUN_OPTIONS } = await import("../src/cli/run-options.js");
    const { stdout } = await gyre(["run", "--help"], { stdin: "ignore" });
    for (const name of Object.keys(RUN_OPTIONS)) if (name !== "print") expect(stdout).toContain(`--${name}`);
  });

  it("names an unknown option and suggests the closest, for run and for other commands", async () => {
    const run = await gyre(["run", "hi", "--max-turn", "3"], { stdin: "ignore" });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toBe("gyre: unknown option '--max-turn'; did you mean --max-turns?\n");
    const sessions = await gyre(["sessions", "list", "--al"], { stdin: "ignore" });
    expect(sessions.code).toBe(1);
    expect(sessions.stderr).toContain("unknown option '--al'; did you mean --all?");
  });

  it("asks for a session id after -r when there is no terminal for a picker", async () => {
    const ran = await gyre(["run", "hi", "-r"], { stdin: "ignore" });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("-r needs a session id when not on a terminal");
  });
});

describe("with a mock model", () => {
  let server: MockLLMServer;
  beforeAll(async () => {
    server = await startMockLLM({ script: { turns: [] } });
  });
  afterAll(async () => server?.close());
  /** A fresh script and request log for one test. */
  const script = (turns: MockScript["turns"], mode: MockScript["mode"] = "history") => {
    server.setScript({ mode, turns });
    server.reset();
  };
  const env = (extra: Record<string, string> = {}) => ({ ...server.env(), ...extra });

  describe("the prompt from stdin", () => {
    it("takes a piped prompt when no argument is given", async () => {
      script([mockTurn.text("The answer is 42.")]);
      const ran = await gyre(["run", ...ISOLATED], { pipe: "What is 6*7?\n", env: env() });
      expect(ran).toMatchObject({ code: 0, stdout: "The answer is 42.\n", stderr: "" });
      expect(userTexts(server)[0]).toEqual(["What is 6*7?"]);
    });

    it("reads stdin for -, which is never sent as the prompt itself", async () => {
      script([mockTurn.text("Read it.")]);
      const file = join(workdir, "prompt.txt");
      writeFileSync(file, "Summarize the release notes.\n");
      const fd = openSync(file, "r");
      try {
        const ran = await gyre(["run", "-", ...ISOLATED], { stdin: fd, env: env() });
        expect(ran).toMatchObject({ code: 0, stdout: "Read it.\n" });
      } finally {
        closeSync(fd);
      }
      expect(userTexts(server)[0]).toEqual(["Summarize the release notes."]);
    });

    it("appends piped stdin to a prompt argument as context", async () => {
      script([mockTurn.text("Looks fine.")]);
      const ran = await gyre(["-p", "review this diff", ...ISOLATED], {
        pipe: "+added line\n-removed line\n",
        env: env(),
      });
      expect(ran).toMatchObject({ code: 0, stdout: "Looks fine.\n", stderr: "" });
      expect(userTexts(server)[0]).toEqual(["review this diff\n\n+added line\n-removed line"]);
    });

    it("does not wait on a socket stdin that a parent holds open, when a prompt argument is given", async () => {
      script([mockTurn.text("Done.")]);
      // Node's child_process gives a socket; the test never writes to it nor closes it.
      const ran = await gyre(["run", "just this", ...ISOLATED], { stdin: "socket", env: env() });
      expect(ran).toMatchObject({ code: 0, stdout: "Done.\n", stderr: "" });
      expect(userTexts(server)[0]).toEqual(["just this"]);
    });

    it("goes on without a pipe that stays silent, saying so, and exits while it is still open", async () => {
      script([mockTurn.text("Done.")]);
      const fifo = join(workdir, "silent.fifo");
      await new Promise((done) => spawn("mkfifo", [fifo]).on("close", done));
      // Opened for reading and writing: the pipe has a writer (this test) that never writes.
      const fd = openSync(fifo, "r+");
      try {
        const ran = await gyre(["run", "just this", ...ISOLATED], { stdin: fd, env: env() });
        expect(ran).toMatchObject({ code: 0, stdout: "Done.\n" });
        expect(ran.stderr).toContain("gyre: stdin is a pipe that gave nothing in 3s; going on without it");
      } finally {
        closeSync(fd);
      }
      expect(userTexts(server)[0]).toEqual(["just this"]);
    });

    it("fails clearly when stdin is empty and there is no prompt", async () => {
      script([]);
      const ran = await gyre(["run", ...ISOLATED], { stdin: "ignore", env: env() });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain("gyre run needs a prompt");
      expect(server.requests).toHaveLength(0);
    });
  });

  describe("claude's flags", () => {
    it("--session-id names the new session, and must be a UUID", async () => {
      script([mockTurn.text("Hi.")]);
      const id = randomUUID();
      const cwd = mkdtempSync(join(workdir, "session-"));
      const ran = await gyre(
        ["-p", "hi", "--session-id", id, "--cwd", cwd, "--setting-sources", "", "--output-format", "json"],
        { env: env() },
      );
      expect(ran.code).toBe(0);
      expect(JSON.parse(ran.stdout)).toMatchObject({ session_id: id, subtype: "success" });
      const resumed = await gyre(
        ["run", "again", "--resume", id, "--cwd", cwd, "--setting-sources", "", "--output-format", "json"],
        {
          env: env(),
        },
      );
      expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id });
      const bad = await gyre(["run", "hi", "--session-id", "not-a-uuid", ...ISOLATED], { env: env() });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('--session-id must be a UUID, not "not-a-uuid"');
    });

    it("--dangerously-skip-permissions runs a call default mode would deny", async () => {
      const cwd = mkdtempSync(join(workdir, "skip-"));
      script([mockTurn.toolUse("Bash", { command: "touch made.txt" }), mockTurn.text("Made it.")]);
      const ran = await gyre(["run", "make it", "--dangerously-skip-permissions", "--cwd", cwd, ...ISOLATED], {
        env: env(),
      });
      expect(ran).toMatchObject({ code: 0, stdout: "Made it.\n", stderr: "" });
      expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    });

    it("--settings JSON adds rules over the files; a denied call is reported on stderr as it happens", async () => {
      const cwd = mkdtempSync(join(workdir, "settings-"));
      script([mockTurn.toolUse("Bash", { command: "touch made.txt" }), mockTurn.text("I could not create the file.")]);
      const settings = JSON.stringify({ permissions: { deny: ["Bash(touch:*)"] } });
      const ran = await gyre(
        ["run", "make it", "--settings", settings, "--permission-mode", "bypassPermissions", "--cwd", cwd, ...ISOLATED],
        { env: env() },
      );
      expect(ran).toMatchObject({ code: 0, stdout: "I could not create the file.\n" });
      expect(ran.stderr).toMatch(/^gyre: Bash denied: .*Bash\(touch:\*\)/);
      expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    });

    it("--settings FILE allows what default mode would otherwise deny", async () => {
      const cwd = mkdtempSync(join(workdir, "settings-file-"));
      const file = join(cwd, "extra-settings.json");
      writeFileSync(file, JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] } }));
      script([mockTurn.toolUse("Bash", { command: "touch made.txt" }), mockTurn.text("Made it.")]);
      const ran = await gyre(["run", "make it", "--settings", file, "--cwd", cwd, ...ISOLATED], { env: env() });
      expect(ran).toMatchObject({ code: 0, stdout: "Made it.\n", stderr: "" });
      expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    });

    it("--json-schema asks for structured output: text prints it as JSON, json has structured_output", async () => {
      const schema = JSON.stringify({
        type: "object",
        properties: { city: { type: "string" }, celsius: { type: "number" } },
        required: ["city", "celsius"],
      });
      script([mockTurn.toolUse("StructuredOutput", { city: "Oslo", celsius: 4 })]);
      const text = await gyre(["run", "weather?", "--json-schema", schema, ...ISOLATED], { env: env() });
      expect(text).toMatchObject({ code: 0, stdout: '{"city":"Oslo","celsius":4}\n' });
      expect(JSON.stringify(server.requests[0]?.body)).toContain("StructuredOutput");
      script([mockTurn.toolUse("StructuredOutput", { city: "Oslo", celsius: 4 })]);
      const json = await gyre(["run", "weather?", "--json-schema", schema, "--output-format", "json", ...ISOLATED], {
        env: env(),
      });
      expect(JSON.parse(json.stdout)).toMatchObject({
        subtype: "success",
        structured_output: { city: "Oslo", celsius: 4 },
      });
      const bad = await gyre(["run", "weather?", "--json-schema", "{not json", ...ISOLATED], { env: env() });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("--json-schema is not valid JSON");
    });

    it("--agents JSON defines agents, which --agent runs as", async () => {
      script([mockTurn.text("Reviewed.")]);
      const agents = JSON.stringify({
        reviewer: { description: "Reviews diffs.", prompt: "You are a strict code reviewer.", tools: ["Read"] },
      });
      const ran = await gyre(["run", "review", "--agents", agents, "--agent", "reviewer", ...ISOLATED], { env: env() });
      expect(ran).toMatchObject({ code: 0, stdout: "Reviewed.\n" });
      expect(systemPrompt(server)).toContain("You are a strict code reviewer.");
      const bad = await gyre(["run", "review", "--agents", '{"reviewer": {"prompt": "x"}}', ...ISOLATED], {
        env: env(),
      });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("agents.reviewer.description");
    });

    it("--verbose shows each tool call and its outcome on stderr; --debug logs every message", async () => {
      const cwd = mkdtempSync(join(workdir, "verbose-"));
      const turns = [mockTurn.toolUse("Bash", { command: "touch made.txt" }), mockTurn.text("Made it.")];
      script(turns);
      const verbose = await gyre(
        ["run", "make it", "--verbose", "--permission-mode", "bypassPermissions", "--cwd", cwd, ...ISOLATED],
        {
          env: env(),
        },
      );
      expect(verbose.stdout).toBe("Made it.\n");
      expect(verbose.stderr).toBe('gyre: Bash {"command":"touch made.txt"}\ngyre: Bash done\n');
      script(turns);
      const debug = await gyre(
        ["run", "make it", "--debug", "--permission-mode", "bypassPermissions", "--cwd", cwd, ...ISOLATED],
        {
          env: env(),
        },
      );
      expect(debug.stdout).toBe("Made it.\n");
      const lines = debug.stderr.trim().split("\n");
      expect(lines.every((line) => /^\[debug \+\d+ms\] /.test(line))).toBe(true);
      expect(debug.stderr).toContain('"permissionMode":"bypassPermissions"');
      expect(debug.stderr).toMatch(/system\/init model=anthropic\/claude-sonnet-5-5 session=/);
      expect(debug.stderr).toContain("assistant [tool_use:Bash] stop=tool_use");
      expect(debug.stderr).toContain("result/success reason=completed turns=2");
    });

    it("prints nothing on stderr when it is not a terminal and the run goes well", async () => {
      const cwd = mkdtempSync(join(workdir, "quiet-"));
      script([mockTurn.toolUse("Bash", { command: "sleep 1.5; touch made.txt" }), mockTurn.text("Made it.")]);
      const ran = await gyre(["run", "make it", "--permission-mode", "bypassPermissions", "--cwd", cwd, ...ISOLATED], {
        env: env(),
      });
      expect(ran).toMatchObject({ code: 0, stdout: "Made it.\n", stderr: "" });
    });
  });

  it("shows progress on stderr when it is a terminal (script(1) gives the run a pty)", async () => {
    const cwd = mkdtempSync(join(workdir, "tty-"));
    script([mockTurn.toolUse("Bash", { command: "sleep 1.5" }), mockTurn.text("Slept.")]);
    const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
    const command = [
      process.execPath,
      CLI,
      "run",
      "sleep",
      "--permission-mode",
      "bypassPermissions",
      "--cwd",
      cwd,
      ...ISOLATED,
    ]
      .map(quote)
      .join(" ");
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      env: cliEnv(env()),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let terminal = "";
    child.stdout.on("data", (chunk) => (terminal += chunk));
    const code = await new Promise((done) => child.on("close", done));
    expect(code).toBe(0);
    const frames = terminal.split("\r\x1b[2K");
    expect(frames.some((frame) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Bash sleep 1\.5 \ds · turn 1 · \$\d+\.\d{4}$/.test(frame))).toBe(true);
    // The line is cleared before the answer, which stands alone.
    expect(frames.at(-1)).toBe("Slept.\r\n");
  });

  describe("--input-format stream-json", () => {
    it("runs each user message of stdin in order, in one session, skipping lines that are not one", async () => {
      script([mockTurn.text("First answer."), mockTurn.text("Second answer.")]);
      const user = (content: unknown) => JSON.stringify({ type: "user", message: { role: "user", content } });
      const ran = await gyre(["run", "--input-format", "stream-json", "--output-format", "stream-json", ...ISOLATED], {
        env: env(),
        lines: [
          user("first question"),
          JSON.stringify({ type: "control_request", request_id: "1", request: { subtype: "interrupt" } }),
          "{oops",
          user([{ type: "text", text: "second question" }]),
        ],
      });
      expect(ran.code).toBe(0);
      const messages = ran.stdout
        .trim()
        .split("\n")
        .map((line) => SDKMessage.parse(JSON.parse(line)));
      const results = messages.filter((message) => message.type === "result");
      expect(results.map((result) => result.type === "result" && result.result)).toEqual([
        "First answer.",
        "Second answer.",
      ]);
      expect(new Set(messages.map((message) => message.session_id)).size).toBe(1);
      // The second request carries the whole conversation: one session.
      expect(userTexts(server)[1]).toEqual(["first question", "second question"]);
      expect(ran.stderr).toContain('gyre: stdin line 2 skipped: a message of type "control_request"');
      expect(ran.stderr).toContain("gyre: stdin line 3 skipped: not JSON");
    });

    it("needs stream-json output and no prompt argument", async () => {
      const text = await gyre(["run", "--input-format", "stream-json", ...ISOLATED], { stdin: "ignore" });
      expect(text.stderr).toContain("--input-format stream-json needs --output-format stream-json");
      const prompt = await gyre(["run", "hi", "--input-format", "stream-json", "--output-format", "stream-json"], {
        stdin: "ignore",
      });
      expect(prompt.stderr).toContain("give no prompt argument");
    });
  });
});
