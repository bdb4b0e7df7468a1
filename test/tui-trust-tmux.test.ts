// The interactive agent and a folder the person has not trusted (issue 29, item 1), end to end:
// the built `gyre` in a real terminal (tmux) against the scripted mock LLM. The trust prompt at
// the first start, what each answer does now and at the next start, and "always allow" in a
// folder that is not trusted.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { GYRE_GITIGNORE } from "../src/tui/allow-always.js";
import { gyreTerminals, sendPrompt } from "./gyre-terminals.js";
import { TEST_SERVER } from "./mcp-support.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

const QUESTION = "Do you trust the files in this folder?";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("trust", async () => {
  await server?.close();
  server = undefined;
});

/** The test's folders: a project, a home of its own and Gyre's data folder (where `gyre trust` records trust). */
let project: string;
let home: string;
let dataFolder: string;

beforeEach(() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gyre-trust-tui-")));
  project = join(root, "project");
  home = join(root, "home");
  dataFolder = join(root, "data");
  mkdirSync(project);
  mkdirSync(home);
});

/** A model that runs `command` with Bash, then says "Done." (each session from its first turn). */
function bashThenDone(command: string): MockScript {
  return { turns: [mockTurn.toolUse("Bash", { command }), mockTurn.text("Done.")] };
}

/** Starts `gyre ARGS` in the project (HOME: the test's home) against `script`, and waits until it shows `ready`. */
async function startGyre(script: MockScript, ready: string, args: string[] = []): Promise<TmuxTerminal> {
  server ??= await startMockLLM({ script });
  const env = { GYRE_HOME: dataFolder, HOME: home, ...server.env() };
  const term = terminals.start({ cwd: project, env, args });
  await term.waitFor(ready, `"${ready}" at start`);
  return term;
}

/** The screen with its wrapped lines joined: a long notice reads as one line. */
function flat(screen: string): string {
  return screen.replace(/\s*\n\s*/g, " ");
}

/** Waits until the screen, lines joined, holds `text`; returns it so joined. */
async function waitForText(term: TmuxTerminal, text: string): Promise<string> {
  return flat(await term.waitUntil((screen) => flat(screen).includes(text), `"${text}"`));
}

/** Quits with Ctrl+D and closes the terminal: the next start is a new session. */
async function quit(term: TmuxTerminal): Promise<void> {
  term.press("C-d");
  await term.waitFor("[exited 0]");
  terminals.kill();
}

/** A project that asks for an allow rule, a hook and an MCP server. */
function writeProjectFiles(): void {
  mkdirSync(join(project, ".gyre"));
  writeFileSync(
    join(project, ".gyre", "settings.json"),
    JSON.stringify({
      permissions: { allow: ["Bash(touch allowed.txt)"] },
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "touch hook-ran.txt" }] }] },
    }),
  );
  writeFileSync(
    join(project, ".mcp.json"),
    JSON.stringify({ mcpServers: { docs: { command: process.execPath, args: [TEST_SERVER] } } }),
  );
}

function trustedFolders(): string[] {
  const file = join(dataFolder, "trusted-folders.json");
  if (!existsSync(file)) return [];
  return (JSON.parse(readFileSync(file, "utf8")) as { folders: Array<{ path: string }> }).folders.map((f) => f.path);
}

/** The tool names the model was offered in its last request. */
function offeredTools(): string[] {
  const body = server?.requests.at(-1)?.body as { tools?: Array<{ name: string }> } | undefined;
  return (body?.tools ?? []).map((tool) => tool.name);
}

describe("the interactive agent in a folder that is not trusted", () => {
  it("asks at the first start, listing allow rules, hooks and .mcp.json's servers; yes is recorded and applies", async () => {
    writeProjectFiles();
    const term = await startGyre(bashThenDone("touch allowed.txt"), QUESTION);
    const screen = await term.waitFor("3. No, ignore what it asks for");
    expect(screen).toContain(project);
    expect(screen).toContain(".gyre/settings.json");
    expect(screen).toContain("allow: Bash(touch allowed.txt)");
    expect(screen).toContain("hook: UserPromptSubmit touch hook-ran.txt");
    expect(screen).toContain("MCP servers (.mcp.json)");
    // The server's command line, however the box wraps it (a long node path takes two lines).
    expect(screen.replace(/[│\s]+/g, " ")).toMatch(/docs: \S+ \S*mcp-test-server\.mjs/);
    // Nothing of the folder ran while it asks: no hook.
    expect(existsSync(join(project, "hook-ran.txt"))).toBe(false);
    term.press("1");
    await waitForText(term, `Trusted ${project} and its subfolders`);
    expect(trustedFolders()).toEqual([project]);

    // The rule, the hook and the MCP server apply: no question for the allowed command.
    await sendPrompt(term, "make it");
    const done = await term.waitFor("Done.");
    expect(done).not.toContain("Allow this call?");
    expect(done).toMatch(/✓ Bash touch allowed\.txt → exit 0/);
    expect(existsSync(join(project, "allowed.txt"))).toBe(true);
    expect(existsSync(join(project, "hook-ran.txt"))).toBe(true);
    expect(offeredTools()).toContain("mcp__docs__add");
    await quit(term);

    // The next start does not ask, and the rule still applies.
    const again = await startGyre(bashThenDone("touch allowed.txt"), "Shift+Tab: mode");
    expect(again.screen()).not.toContain(QUESTION);
    await sendPrompt(again, "once more");
    const second = await again.waitFor("Done.");
    expect(second).not.toContain("Allow this call?");
    expect(second).not.toContain("folder not trusted");
  });

  it("trusts for this session only: the folder's settings apply now, nothing is recorded, and the next start asks again", async () => {
    writeProjectFiles();
    const term = await startGyre(bashThenDone("touch allowed.txt"), QUESTION);
    term.press("2");
    await waitForText(term, `Trusted ${project} for this session only`);
    await sendPrompt(term, "make it");
    const done = await term.waitFor("Done.");
    expect(done).not.toContain("Allow this call?");
    expect(existsSync(join(project, "allowed.txt"))).toBe(true);
    expect(offeredTools()).toContain("mcp__docs__add");
    expect(trustedFolders()).toEqual([]);
    await quit(term);

    const again = await startGyre(bashThenDone("touch allowed.txt"), QUESTION);
    expect(again.screen()).toContain("allow: Bash(touch allowed.txt)");
  });

  it("answered no, says what is ignored and how to trust, and keeps the rules, hooks and servers off", async () => {
    writeProjectFiles();
    // A first prompt on the command line waits for the answer.
    const term = await startGyre(bashThenDone("touch allowed.txt"), QUESTION, ["make it"]);
    expect(server?.requests).toHaveLength(0);
    term.press("3");
    const told = await waitForText(term, `To trust it: gyre trust ${project}`);
    expect(told).toContain(
      `${project} is not trusted: Gyre ignores .gyre/settings.json (allow rules, hooks), the MCP servers of .mcp.json (docs)`,
    );
    expect(told).toContain("the deny and ask rules of its settings still apply");
    await term.waitFor("· folder not trusted", "the status line to say the folder is not trusted");
    // The allow rule is ignored: the call is asked.
    await term.waitFor("Allow this call?");
    term.press("1");
    const done = await term.waitFor("Done.");
    expect(existsSync(join(project, "hook-ran.txt"))).toBe(false);
    expect(offeredTools()).not.toContain("mcp__docs__add");
    // The run's own report of what it ignored is not said a second time.
    expect(flat(done).match(/is not trusted: Gyre ignores/g)).toHaveLength(1);
    expect(trustedFolders()).toEqual([]);
  });

  it("quits with the question open (Ctrl+C twice), having started nothing", async () => {
    writeProjectFiles();
    const term = await startGyre(bashThenDone("touch allowed.txt"), QUESTION, ["make it"]);
    term.press("C-c");
    await term.waitFor("Press Ctrl+C again to quit");
    term.press("C-c");
    await term.waitFor("[exited 0]");
    expect(server?.requests).toHaveLength(0);
    expect(existsSync(join(project, "hook-ran.txt"))).toBe(false);
    expect(trustedFolders()).toEqual([]);
  });

  it("offers trust after 'always allow'; trusted, the rule sticks in the next session; .gyre/.gitignore keeps it out of git", async () => {
    execFileSync("git", ["init", "-q"], { cwd: project });
    // Nothing to offer yet: no question at start.
    const term = await startGyre(bashThenDone("touch made.txt"), "Shift+Tab: mode");
    expect(term.screen()).not.toContain(QUESTION);
    await sendPrompt(term, "make the file");
    await term.waitFor("always allow Bash(touch made.txt) in this project");
    term.press("2");
    const asked = await term.waitFor(QUESTION);
    expect(asked).toContain("Bash(touch made.txt) is saved in .gyre/settings.local.json");
    expect(asked).toContain("allow: Bash(touch made.txt)");
    term.press("1");
    await waitForText(term, "Bash(touch made.txt) sticks");
    await term.waitFor("Done.");
    expect(trustedFolders()).toEqual([project]);
    expect(readFileSync(join(project, ".gyre", ".gitignore"), "utf8")).toBe(GYRE_GITIGNORE);
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(status).toContain(".gyre/.gitignore");
    expect(status).not.toContain("settings.local.json");
    await quit(term);

    const again = await startGyre(bashThenDone("touch made.txt"), "Shift+Tab: mode");
    expect(again.screen()).not.toContain(QUESTION);
    await sendPrompt(again, "make it again");
    const second = await again.waitFor("Done.");
    expect(second).not.toContain("Allow this call?");
  });

  it("after 'always allow' answered no, keeps the rule for this session and asks at the next start", async () => {
    const twice = mockTurn.toolUse("Bash", { command: "touch made.txt" });
    const term = await startGyre({ turns: [twice, twice, mockTurn.text("Done.")] }, "Shift+Tab: mode");
    await sendPrompt(term, "make the file twice");
    await term.waitFor("Allow this call?");
    term.press("2");
    await term.waitFor(QUESTION);
    term.press("2");
    await waitForText(
      term,
      `Bash(touch made.txt) is allowed for this session only: ${project} is not trusted, so the next session ignores .gyre/settings.local.json`,
    );
    const done = await term.waitFor("Done.");
    expect(done.match(/✓ Bash touch made\.txt → exit 0/g)).toHaveLength(2);
    expect(trustedFolders()).toEqual([]);
    await quit(term);

    const again = await startGyre(bashThenDone("touch made.txt"), QUESTION);
    expect(again.screen()).toContain(".gyre/settings.local.json");
    expect(again.screen()).toContain("allow: Bash(touch made.txt)");
  });
});
