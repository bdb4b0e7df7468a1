import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openSqliteSessionStore, SDKMessage, SessionInfo } from "../src/index.js";
import { type MockLLMServer, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { assistant, prompt, toolResults, toolUse } from "./sessions-fixtures.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const execFileAsync = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");

/** The history-mode mock answers turn N to a conversation holding N assistant turns. */
const ANSWERS = ["The answer is 42.", "You asked what 6*7 is.", "Third answer.", "Fourth answer."];

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

let server: MockLLMServer;
let root: string;
let workdir: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  root = mkdtempSync(join(tmpdir(), "gyre-cli-sessions-"));
  server = await startMockLLM({
    script: { mode: "history", turns: ANSWERS.map((text) => ({ content: [{ type: "text", text }] })) },
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

let project = 0;
beforeEach(() => {
  // Each test is its own project: its sessions are listed by the cwd's real path.
  workdir = join(root, `project-${++project}`);
  mkdirSync(workdir);
  extraEnv = {};
});

let extraEnv: Record<string, string> = {};

/** Runs the built CLI as a child process in the test's project directory. */
async function gyre(...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], {
      cwd: workdir,
      env: cliEnv({ HOME: root, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: server.baseURL, ...extraEnv }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** `gyre run ... --output-format json`: the result message. */
async function run(prompt: string, ...flags: string[]) {
  const outcome = await gyre("run", prompt, "--output-format", "json", ...flags);
  expect(outcome, outcome.stderr).toMatchObject({ code: 0 });
  const result = SDKMessage.parse(JSON.parse(outcome.stdout));
  if (result.type !== "result") throw new Error(`expected a result, got ${result.type}`);
  return result;
}

async function list(): Promise<SessionInfo[]> {
  const outcome = await gyre("sessions", "list", "--json");
  expect(outcome.code).toBe(0);
  return SessionInfo.array().parse(JSON.parse(outcome.stdout));
}

async function show(id: string): Promise<{ session: SessionInfo; messages: SDKMessage[] }> {
  const outcome = await gyre("sessions", "show", id, "--json");
  expect(outcome, outcome.stderr).toMatchObject({ code: 0 });
  const { session, messages } = JSON.parse(outcome.stdout) as { session: unknown; messages: unknown[] };
  return { session: SessionInfo.parse(session), messages: messages.map((m) => SDKMessage.parse(m)) };
}

/** The user prompts the mock received in its latest request, oldest first. */
function promptsSentLast(): string[] {
  const body = server.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
  return body.messages
    .filter((message) => message.role === "user")
    .flatMap((message) =>
      typeof message.content === "string"
        ? [message.content]
        : (message.content as { type: string; text?: string }[]).flatMap((block) =>
            block.type === "text" && block.text !== undefined ? [block.text] : [],
          ),
    );
}

describe("gyre sessions and gyre run --resume/--continue, as real processes", () => {
  it("a run is stored in the user's database, not the project; sessions list and show print it, as text and as JSON", async () => {
    const result = await run("What is 6*7?");
    expect(result.result).toBe(ANSWERS[0]);
    expect(result.session_id).toMatch(UUID);
    expect(existsSync(join(process.env.GYRE_HOME!, "sessions.db"))).toBe(true);
    expect(existsSync(join(workdir, ".gyre"))).toBe(false);

    expect(await list()).toMatchObject([
      { id: result.session_id, cwd: workdir, project: workdir, title: "What is 6*7?", messageCount: 4, runs: 1 },
    ]);
    const text = await gyre("sessions", "list");
    expect(text.stdout).toContain(result.session_id);
    expect(text.stdout).toContain("4 msgs");
    expect(text.stdout).toContain("What is 6*7?");

    const shown = await show(result.session_id);
    expect(shown.session.id).toBe(result.session_id);
    expect(shown.messages.map((message) => message.type)).toEqual(["system", "user", "assistant", "result"]);
    const transcript = await gyre("sessions", "show", result.session_id);
    expect(transcript.code).toBe(0);
    expect(transcript.stdout).toContain("> What is 6*7?");
    expect(transcript.stdout).toContain(ANSWERS[0]);
    expect(transcript.stdout).toContain("-- success (1 turns");
  });

  it("run --resume ID goes on in that session with its history sent to the model", async () => {
    const first = await run("What is 6*7?");
    const other = await run("Something else entirely");
    const resumed = await run("What did I ask?", "--resume", first.session_id);

    expect(resumed.session_id).toBe(first.session_id);
    expect(resumed.result).toBe(ANSWERS[1]);
    expect(promptsSentLast()).toEqual(["What is 6*7?", "What did I ask?"]);
    const { session, messages } = await show(first.session_id);
    expect(session).toMatchObject({ runs: 2, title: "What is 6*7?" });
    expect(messages.filter((message) => message.type === "result")).toHaveLength(2);
    // The other session is untouched.
    expect((await show(other.session_id)).session).toMatchObject({ runs: 1, messageCount: 4 });
  });

  it("run --continue goes on in the latest session of the cwd; --fork-session copies it", async () => {
    await run("older session");
    const latest = await run("What is 6*7?");
    const continued = await run("What did I ask?", "--continue");
    expect(continued.session_id).toBe(latest.session_id);
    expect(promptsSentLast()).toEqual(["What is 6*7?", "What did I ask?"]);

    const forked = await run("and then?", "--continue", "--fork-session");
    expect(forked.session_id).not.toBe(latest.session_id);
    // One form of id for every session, and a title of its own.
    expect(forked.session_id).toMatch(UUID);
    expect(forked.result).toBe(ANSWERS[2]);
    expect(promptsSentLast()).toEqual(["What is 6*7?", "What did I ask?", "and then?"]);
    expect((await show(latest.session_id)).session).toMatchObject({ runs: 2 });
    expect((await show(forked.session_id)).session).toMatchObject({
      runs: 3,
      parentId: latest.session_id,
      title: "What is 6*7? (fork)",
    });
    expect((await show(latest.session_id)).session.title).toBe("What is 6*7?");
    expect((await list()).map((session) => session.id)).toEqual([
      forked.session_id,
      latest.session_id,
      expect.any(String),
    ]);
  });

  it("sessions rm deletes a session; unknown ids are clear errors", async () => {
    const kept = await run("keep me");
    const doomed = await run("delete me");

    const removed = await gyre("sessions", "rm", doomed.session_id);
    expect(removed).toMatchObject({ code: 0, stdout: `deleted ${doomed.session_id}\n` });
    expect((await list()).map((session) => session.id)).toEqual([kept.session_id]);

    for (const args of [
      ["sessions", "show", doomed.session_id],
      ["sessions", "rm", doomed.session_id],
      ["run", "hello", "--resume", doomed.session_id],
    ]) {
      const outcome = await gyre(...args);
      expect(outcome.code, args.join(" ")).toBe(1);
      expect(outcome.stderr, args.join(" ")).toContain(`No session with id ${doomed.session_id}`);
    }
    const requests = server.requests.length;
    expect(await gyre("sessions", "show")).toMatchObject({ code: 1, stderr: expect.stringContaining("session id") });
    expect(server.requests.length).toBe(requests);
  });

  it("run --continue with no session yet starts one; --no-session-persistence stores nothing", async () => {
    const started = await run("first ever", "--continue");
    expect(started.result).toBe(ANSWERS[0]);
    expect((await list()).map((session) => session.id)).toEqual([started.session_id]);

    await run("not kept", "--no-session-persistence");
    expect((await list()).map((session) => session.id)).toEqual([started.session_id]);
    const refused = await gyre("run", "x", "--continue", "--no-session-persistence");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("persistSession is false");
  });

  it("sessions list with no database creates none and says there are no sessions", async () => {
    const home = join(root, `empty-home-${project}`);
    extraEnv = { GYRE_HOME: home };
    expect(await gyre("sessions", "list")).toMatchObject({ code: 0, stdout: `no sessions in ${workdir}\n` });
    expect(await gyre("sessions", "list", "--json")).toMatchObject({ code: 0, stdout: "[]\n" });
    expect(await gyre("sessions", "show", "nope")).toMatchObject({ code: 1, stderr: expect.stringContaining("nope") });
    expect(existsSync(home)).toBe(false);
    expect(existsSync(join(workdir, ".gyre"))).toBe(false);

    // A database holding only other projects' sessions: still none here, and --all shows them.
    await run("in another project");
    const elsewhere = workdir;
    workdir = join(root, `project-${++project}`);
    mkdirSync(workdir);
    expect(await gyre("sessions", "list")).toMatchObject({ code: 0, stdout: `no sessions in ${workdir}\n` });
    const all = await gyre("sessions", "list", "--all");
    expect(all.stdout).toContain("in another project");
    expect(all.stdout).toContain(elsewhere);
  });

  it("sessions show prints each tool result: a preview, --full for all of it, --json the raw messages", async () => {
    const home = join(root, `show-home-${project}`);
    extraEnv = { GYRE_HOME: home };
    const long = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n");
    const store = openSqliteSessionStore({ path: join(home, "sessions.db") });
    await store.createSession({ id: "s1", cwd: workdir });
    const messages = [
      prompt("s1", "list the files"),
      assistant("s1", [toolUse("t1", "Bash", { command: "ls" }), toolUse("t2", "Read", { file_path: "/nope" })]),
      toolResults("s1", [
        { tool_use_id: "t1", content: long },
        { tool_use_id: "t2", content: "File does not exist.", is_error: true },
      ]),
    ];
    for (const message of messages) await store.append("s1", message);
    await store.close();

    const shown = await gyre("sessions", "show", "s1");
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("  ← Bash\n    line 1\n");
    expect(shown.stdout).toContain("    line 10\n    … 15 more lines");
    expect(shown.stdout).not.toContain("line 11");
    expect(shown.stdout).toContain("  ← Read (error)\n    File does not exist.\n");

    const full = await gyre("sessions", "show", "s1", "--full");
    expect(full.stdout).toContain("    line 24\n    line 25\n");
    expect(full.stdout).not.toContain("more lines");

    const json = await show("s1");
    expect(json.messages).toEqual(messages);

    const unknown = await gyre("sessions", "show", "s1", "--verbose");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("config_error");
    expect(unknown.stderr).toContain("--verbose");
    expect(unknown.stderr).toContain("usage: gyre sessions");
  });
});
