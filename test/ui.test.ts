// `gyre ui` end to end (issue 34): the built CLI's `gyre ui` over a store filled by real `gyre run`s
// against the mock LLM, read in Debian's headless chromium driven by playwright-core (a compat
// peer). One browser for the file. The screenshots in docs/images come from here
// (GYRE_UPDATE_SCREENSHOTS=1 npx vitest run test/ui.test.ts).
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteSessionStore, query } from "../src/index.js";
import { mockTurn, startMockLLM, type MockScript } from "../src/testing/index.js";
import { largeSession, openLargeSession } from "../bench/ui-open.mjs";
import { cliEnv } from "./helpers.js";
import {
  type Browser,
  CLI,
  launchChromium,
  type Page,
  sessionIdOf,
  startUiProcess,
  type UiProcess,
} from "./ui-support.js";

const run = promisify(execFile);
/**
 * Where the screenshots go: docs/images (the README shows them) when GYRE_UPDATE_SCREENSHOTS=1,
 * else a scratch folder, so a test run does not leave the checkout changed (durations and ids
 * differ from run to run). Either way the test takes them, so the page they show is tested.
 */
const IMAGES =
  process.env.GYRE_UPDATE_SCREENSHOTS === "1" ? resolve("docs/images") : mkdtempSync(join(tmpdir(), "gyre-ui-shots-"));

let home: string;
let gyreHome: string;
let projectParent: string;
let project: string;
let env: NodeJS.ProcessEnv;
let ui: UiProcess;
let browser: Browser;
const ids: Record<string, string> = {};

/** `gyre run PROMPT ARGS` against `script` on a mock LLM of its own; the session id. */
async function gyreRun(script: MockScript, prompt: string, ...args: string[]): Promise<string> {
  const server = await startMockLLM({ script });
  try {
    const { stdout } = await run(
      process.execPath,
      [CLI, "run", prompt, "--output-format", "json", "--cwd", project, ...args],
      { env: { ...env, ...server.env() } },
    );
    return sessionIdOf(stdout);
  } finally {
    await server.close();
  }
}

/** The status of a GET with exactly these headers (Host included). */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const request = get(url, { headers }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    });
    request.on("error", fail);
  });
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
  const page = await context.newPage();
  // The address gyre ui printed: the token becomes a cookie, and leaves the address.
  await page.goto(ui.url);
  return page;
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  home = mkdtempSync(join(tmpdir(), "gyre-ui-home-"));
  gyreHome = mkdtempSync(join(tmpdir(), "gyre-ui-data-"));
  // A project folder of a steady name: the screenshots show it.
  projectParent = mkdtempSync(join(tmpdir(), "gyre-ui-project-"));
  project = join(projectParent, "acme-app");
  mkdirSync(project);
  env = cliEnv({ HOME: home, GYRE_HOME: gyreHome });
  mkdirSync(join(home, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(home, ".claude", "agents", "scout.md"),
    "---\nname: scout\ndescription: Looks around the project\ntools: Glob\n---\nYou are scout. Report briefly.\n",
  );
  writeFileSync(join(project, "greeting.ts"), 'export const greeting = "hello";\nexport const answer = 41;\n');
  const file = join(project, "greeting.ts");
  ids.rich = await gyreRun(
    {
      turns: [
        mockTurn.of([
          { type: "thinking", thinking: "The greeting file first." },
          { type: "tool_use", name: "Read", input: { file_path: file } },
        ]),
        mockTurn.toolUse("Edit", { file_path: file, old_string: "answer = 41", new_string: "answer = 42" }),
        mockTurn.toolUse("Bash", { command: "rm -rf build" }),
        mockTurn.toolUse("Agent", { description: "look around", prompt: "list files", subagent_type: "scout" }),
        mockTurn.text(
          "Fixed **the answer** in `greeting.ts`.\n\n- it is `42` now\n- <script>window.pwned = 1</script> stays text\n\n[not a link](javascript:alert(1))",
        ),
      ],
      routes: [
        { system: "You are scout.", turns: [mockTurn.toolUse("Glob", { pattern: "*.ts" }), mockTurn.text("one file")] },
      ],
    },
    "Fix the answer in greeting.ts",
    "--permission-mode",
    "acceptEdits",
    "--disallowed-tools",
    "Bash(rm:*)",
  );
  ids.write = await gyreRun(
    {
      turns: [
        mockTurn.toolUse("Write", { file_path: join(project, "notes.md"), content: "# Notes\n\nnew file\n" }),
        mockTurn.text("Wrote notes.md"),
      ],
    },
    "Write some notes",
    "--permission-mode",
    "acceptEdits",
  );
  ui = await startUiProcess(env);
  browser = await launchChromium();
  mkdirSync(IMAGES, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  for (const dir of [home, gyreHome, projectParent]) if (dir) rmSync(dir, { recursive: true, force: true });
  if (IMAGES !== resolve("docs/images")) rmSync(IMAGES, { recursive: true, force: true });
});

describe("gyre ui", () => {
  it("answers nothing without the token, nor to another Host; the printed address sets an HttpOnly SameSite=Strict cookie", async () => {
    for (const path of ["/", "/api/sessions", `/api/sessions/${ids.rich}`, "/api/events"]) {
      expect((await fetch(`${ui.origin}${path}`)).status).toBe(401);
      expect((await fetch(`${ui.origin}${path}?token=${"0".repeat(64)}`)).status).toBe(401);
    }
    // A page of another site whose name was rebound to 127.0.0.1 sends its own name as Host
    // (fetch cannot set Host, so node:http does).
    const bearer = { authorization: `Bearer ${ui.token}` };
    expect(await statusOf(`${ui.origin}/api/sessions`, { ...bearer, host: "evil.example" })).toBe(403);
    expect(
      await statusOf(`${ui.origin}/api/sessions`, { ...bearer, host: `evil.example:${new URL(ui.origin).port}` }),
    ).toBe(403);
    expect(await statusOf(`${ui.origin}/api/sessions`, bearer)).toBe(200);
    const first = await fetch(ui.url, { redirect: "manual" });
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/");
    const cookie = first.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await fetch(`${ui.origin}/api/sessions`, { headers: { cookie: cookie.split(";")[0] ?? "" } });
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get("content-security-policy")).toContain("script-src 'self'");

    const page = await (await browser.newContext()).newPage();
    const refused = await page.goto(`${ui.origin}/`);
    expect(refused?.status()).toBe(401);
    await page.context().close();
  });

  it("refuses a wrong --port and an unknown store scheme before listening", async () => {
    const fails = (args: string[]) =>
      run(process.execPath, [CLI, "ui", ...args], { env }).then(
        () => "",
        (error: { code: number; stderr: string }) => `${error.code} ${error.stderr}`,
      );
    expect(await fails(["--port", "70000"])).toMatch(/^1 .*--port must be 0-65535/);
    expect(await fails(["--store", "mysql://x"])).toMatch(/^1 .*unknown store scheme "mysql:"/);
  });

  it("lists the sessions newest first, with their project, model, turns, cost and status", async () => {
    const page = await newPage();
    await page.getByTestId("session-row").nth(1).waitFor();
    const rows = await page.getByTestId("session-row").allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("Write some notes");
    expect(rows[1]).toContain("Fix the answer in greeting.ts");
    expect(rows[1]).toContain("claude-sonnet");
    expect(rows[1]).toMatch(/done/);
    expect(rows[1]).toMatch(/\$\d/);
    // Its model calls: the five turns of the run the test made (the subagent's are its own session's).
    expect(await page.getByTestId("turns").nth(1).innerText()).toBe("5");
    await page.locator("body").screenshot({ path: join(IMAGES, "ui-sessions.png") });
    await page.locator("#search").click();
    await page.keyboard.press("n");
    await page.keyboard.press("o");
    await page.keyboard.press("t");
    expect(await page.getByTestId("session-row").count()).toBe(1);
    await page.keyboard.press("Escape");
    await page.context().close();
  });

  it("opens a run by keyboard: its turns, the denied call with its rule, the Edit's diff, the subagent nested", async () => {
    const page = await newPage();
    await page.getByTestId("session-row").nth(1).waitFor();
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await page.getByTestId("run").waitFor();
    expect(page.url()).toContain(`#/s/${ids.rich}`);
    expect(await page.getByTestId("turn").count()).toBe(5);

    const denied = page.getByTestId("tool-call").filter({ hasText: "rm -rf build" });
    expect(await denied.locator(".badge").first().innerText()).toBe("denied");
    expect(await denied.getByTestId("denial").innerText()).toMatch(/Bash\(rm:\*\)/);

    const edit = page.locator('[data-tool="Edit"]');
    await edit.locator(".tool-line").click();
    const diff = edit.locator('[data-testid="diff"]');
    await diff.waitFor();
    const diffText = await diff.innerText();
    expect(diffText).toContain("answer = 41");
    expect(diffText).toContain("answer = 42");
    expect(await diff.locator("tr.del").count()).toBe(1);
    expect(await diff.locator("tr.add").count()).toBe(1);
    // Why it was allowed to run: the run's mode, as the permission policy said it.
    expect(await edit.getByTestId("permission").innerText()).toBe(
      "allowed: acceptEdits mode allows file edits inside the workspace",
    );

    const subagent = page.getByTestId("subagent");
    expect(await subagent.innerText()).toContain("scout");
    await subagent.locator(".subagent-line").click();
    const nested = page.getByTestId("nested-run");
    // The nested run renders as its records arrive: its Glob call, then its answer.
    await nested.locator('[data-tool="Glob"]').waitFor();
    await nested.getByText("one file").first().waitFor();
    expect(await page.getByTestId("run-cost").innerText()).toMatch(/with subagents/);

    // The model's markup is text: no script ran, no javascript: link exists.
    expect(await page.locator(".md").last().innerText()).toContain("<script>window.pwned = 1</script>");
    expect(await page.evaluate("window.pwned === undefined")).toBe(true);
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await page.getByTestId("result").last().innerText()).toMatch(/success · completed/);
    await page.screenshot({ path: join(IMAGES, "ui-run.png"), fullPage: true });

    await page.keyboard.press("Escape");
    await page.getByTestId("sessions").waitFor();
    await page.context().close();
  });

  it("shows a Write's diff against the file before it (a new file)", async () => {
    const page = await newPage();
    await page.goto(`${ui.origin}/#/s/${ids.write}`);
    const write = page.locator('[data-tool="Write"]');
    await write.locator(".tool-line").click();

    const diff = write.locator('[data-testid="diff"]');
    await diff.waitFor();
    expect(await diff.innerText()).toContain("(new file)");
    expect(await diff.locator("tr.add").count()).toBe(3);
    await page.context().close();
  });

  it("shows what a step changed, from the snapshots option's parts", async () => {
    const store = openSqliteSessionStore({ path: join(gyreHome, "sessions.db") });
    const server = await startMockLLM({
      script: {
        turns: [
          mockTurn.toolUse("Write", { file_path: join(project, "step.txt"), content: "made by a step\n" }),
          mockTurn.text("Made it."),
        ],
      },
    });
    // Snapshots live in Gyre's data folder: gyre ui's, for it to find them.
    const dataFolder = process.env.GYRE_HOME;
    process.env.GYRE_HOME = gyreHome;
    let id = "";
    try {
      const options = {
        model: "anthropic/claude-sonnet-4-5",
        env: server.env(),
        cwd: project,
        sessionStore: store,
        snapshots: true,
        permissionMode: "acceptEdits" as const,
      };
      for await (const message of query({ prompt: "Make step.txt", options })) id = message.session_id;
    } finally {
      process.env.GYRE_HOME = dataFolder;
      await server.close();
      await store.close();
    }
    const page = await newPage();
    await page.goto(`${ui.origin}/#/s/${id}`);
    const step = page.getByTestId("step-diff").first();
    await step.locator("button").click();
    const diff = step.locator(".diff");
    await diff.waitFor();
    expect(await diff.innerText()).toContain("step.txt");
    expect(await diff.locator("tr.add").allInnerTexts()).toEqual(["+made by a step"]);
    await page.context().close();
  });

  it("follows a run live: the list gains it, its open page shows the running call, then the result", async () => {
    const page = await newPage();
    await page.getByTestId("session-row").nth(1).waitFor();
    const release = join(project, "release");
    const server = await startMockLLM({
      script: {
        turns: [
          mockTurn.toolUse("Bash", { command: `while [ ! -e ${release} ]; do sleep 0.05; done; echo released` }),
          mockTurn.text("The wait is over."),
        ],
      },
    });
    const child = spawn(
      process.execPath,
      [
        CLI,
        "run",
        "Wait for the release",
        "--output-format",
        "json",
        "--cwd",
        project,
        "--permission-mode",
        "bypassPermissions",
      ],
      { env: { ...env, ...server.env() }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    try {
      const row = page.getByTestId("session-row").filter({ hasText: "Wait for the release" });
      await row.waitFor();
      await row.locator(".badge").filter({ hasText: "running" }).waitFor();
      await row.click();
      const bash = page.locator('[data-tool="Bash"]');
      await bash.locator(".badge").filter({ hasText: "running" }).waitFor();
      expect(await page.getByTestId("run-status").innerText()).toBe("running");
      writeFileSync(release, "");
      await page.getByTestId("result").last().waitFor();
      expect(await bash.locator(".badge").first().innerText()).toBe("completed");
      expect(await page.getByTestId("run-status").innerText()).toBe("done");
      expect(await page.locator(".md").last().innerText()).toContain("The wait is over.");
      expect(await exited).toBe(0);
      ids.live = sessionIdOf(stdout);
    } finally {
      child.kill();
      await server.close();
      await page.context().close();
    }
  });

  it("opens a session of 1,000 turns and 5,000 tool calls (script time reported, not asserted)", async () => {
    const store = openSqliteSessionStore({ path: join(gyreHome, "sessions.db") });
    const id = "big-session-0001";
    try {
      await store.createSession({ id, cwd: project, title: "A thousand turns" }, largeSession(id, project, 1000, 5));
    } finally {
      await store.close();
    }
    const page = await newPage();
    const { scriptMs, mainThreadMs, openedMs } = await openLargeSession(page, id, 1000);
    expect(await page.getByTestId("tool-call").count()).toBe(5000);
    console.log(
      `gyre ui: a session of 1,000 turns and 5,000 tool calls opened in ${Math.round(scriptMs)} ms of script time ` +
        `(main thread busy ${Math.round(mainThreadMs)} ms; ${Math.round(openedMs)} ms from the address change to the ` +
        "rendered timeline, the fetch included)",
    );
    await page.context().close();
  });
});
