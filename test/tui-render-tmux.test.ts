// How the interactive agent shows a turn, end to end: the built `gyre` in a real terminal
// (tmux) against the scripted mock LLM: diffs, the live task list, thinking, Ctrl+O,
// subagents nested under their call, NO_COLOR, a narrow terminal and a resize.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { gyreTerminals, sendPrompt } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

/** SGR sequences that set a foreground or background colour (tmux writes 39 and 49, the defaults, everywhere). */
const COLOR_SGR = /\x1b\[(?:[\d;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[\d;]*)?m/;

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("tui-render", async () => {
  await server?.close();
  server = undefined;
});
const send = sendPrompt;

/** Starts the mock with the script and `gyre ARGS` in `cwd`, in a terminal of the given size; waits for the prompt. */
async function startGyre(
  cwd: string,
  script: MockScript,
  args: string[],
  size: { width: number; height: number; env?: Record<string, string> },
): Promise<TmuxTerminal> {
  server = await startMockLLM({ script });
  return terminals.startReady({
    cwd,
    args,
    env: { GYRE_HOME: cliEnv().GYRE_HOME ?? "", ...server.env(), ...size.env },
    width: size.width,
    height: size.height,
    // A 40-column status line is cut short.
    ready: "Shift+Tab",
  });
}

const BUGGY = "function sum(a, b) {\n  return a - b;\n}\nmodule.exports = sum;\n";

const todos = (statuses: string[]) => ({
  todos: ["Read the code", "Fix the bug", "Run the tests"].map((content, index) => ({
    content,
    status: statuses[index],
    activeForm: ["Reading the code", "Fixing the bug", "Running the tests"][index],
  })),
});

/** The screen's lines that are the colourless text `text` (ignoring the escape sequences around). */
function linesWith(screen: string, text: string): string[] {
  return screen.split("\n").filter((line) => line.replace(/\x1b\[[\d;]*m/g, "").includes(text));
}

describe("gyre shows a turn in a real terminal", () => {
  it("shows an edit's coloured diff, the task list updated in place, thinking folded, and Ctrl+O expands", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-render-"));
    const file = join(cwd, "sum.js");
    writeFileSync(file, BUGGY);
    const term = await startGyre(
      cwd,
      {
        turns: [
          mockTurn.toolUse("TodoWrite", todos(["in_progress", "pending", "pending"])),
          mockTurn.toolUse("Read", { file_path: file }),
          mockTurn.toolUse("Edit", {
            file_path: file,
            old_string: "function sum(a, b) {\n  return a - b;\n}",
            new_string: "function sum(a, b) {\n  return a + b;\n}",
          }),
          mockTurn.toolUse("TodoWrite", todos(["completed", "completed", "pending"])),
          mockTurn.of([
            { type: "thinking", thinking: "The sign in the return was wrong." },
            { type: "text", text: "Fixed **sum**; the tests come next." },
          ]),
        ],
      },
      ["--permission-mode", "acceptEdits"],
      { width: 100, height: 60 },
    );
    await send(term, "fix sum");
    const screen = await term.waitFor("Fixed sum; the tests come next.");
    expect(readFileSync(file, "utf8")).toContain("return a + b;");
    // The diff under the Edit line: context unmarked, the removed line red with -, the added green with +.
    expect(screen).toMatch(
      /✓ Edit sum\.js\n\s+⎿ {3}function sum\(a, b\) \{\n\s+- {3}return a - b;\n\s+\+ {3}return a \+ b;\n\s+ {3}\}/,
    );
    const colored = term.screen({ escapes: true });
    expect(linesWith(colored, "-   return a - b;")[0]).toMatch(/\x1b\[(?:[\d;]*;)?31(?:;[\d;]*)?m/);
    expect(linesWith(colored, "+   return a + b;")[0]).toMatch(/\x1b\[(?:[\d;]*;)?32(?:;[\d;]*)?m/);
    // Each TodoWrite says how far the list was; the list itself is shown once, as last written.
    expect(screen).toContain("✓ TodoWrite (3 tasks, 0 done, 1 in progress)");
    expect(screen).toContain("✓ TodoWrite (3 tasks, 2 done)");
    expect(screen.match(/^Tasks\s*$/gm)).toHaveLength(1);
    expect(screen).toMatch(/☒ Read the code\n\s+☒ Fix the bug\n\s+☐ Run the tests/);
    expect(screen).not.toContain("◐");
    // Thinking is one dim line; the Read's output is not shown.
    expect(screen).toContain("✻ Thinking…");
    expect(screen).not.toContain("The sign in the return was wrong.");
    expect(screen).not.toContain("module.exports = sum;");

    term.press("C-o");
    const expanded = await term.waitFor("The sign in the return was wrong.", "the thinking to be expanded");
    expect(expanded).toContain("module.exports = sum;");
    expect(expanded).toMatch(/✓ TodoWrite \(3 tasks, 0 done, 1 in progress\)\n\s+⎿ ◐ Reading the code/);
    // Redrawn, not appended: the conversation is on the screen once.
    expect(expanded.match(/✓ Edit sum\.js/g)).toHaveLength(1);

    term.press("C-o");
    await term.waitUntil((now) => !now.includes("The sign in the return was wrong."), "the thinking to fold again");
  });

  it("nests a subagent's calls under its Agent call", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-render-"));
    writeFileSync(join(cwd, "notes.md"), "x");
    const term = await startGyre(
      cwd,
      {
        turns: [
          mockTurn.toolUse("Agent", {
            description: "look around",
            prompt: "list files",
            subagent_type: "general-purpose",
          }),
          mockTurn.text("The scout is back."),
        ],
        routes: [
          {
            system: "You are an agent working on a task given to you by another agent.",
            turns: [mockTurn.toolUse("Glob", { pattern: "*.md" }), mockTurn.text("One markdown file.")],
          },
        ],
      },
      ["--allowed-tools", "Agent"],
      { width: 100, height: 40 },
    );
    await send(term, "survey");
    const screen = await term.waitFor("The scout is back.");
    expect(screen).toMatch(/✓ Agent look around.*\n {4}✓ Glob \*\.md \(1 file\)\n\n? {4}● One markdown file\./);
  });

  it("strips colours for NO_COLOR, fits a narrow terminal, and redraws for a wider one", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-render-"));
    const long = `const message = "${"long ".repeat(12)}end";`;
    const term = await startGyre(
      cwd,
      {
        turns: [
          mockTurn.toolUse("Write", { file_path: join(cwd, "long.js"), content: `${long}\n` }),
          mockTurn.text("Wrote it.\n\n```js\nconst x = 1; // note\n```"),
        ],
      },
      ["--permission-mode", "acceptEdits"],
      { width: 40, height: 40, env: { NO_COLOR: "1" } },
    );
    await send(term, "write it");
    const narrow = await term.waitFor("Wrote it.");
    for (const line of narrow.split("\n")) expect(line.length).toBeLessThanOrEqual(40);
    expect(narrow).toMatch(/\+ const message = "long long.*…/);
    expect(narrow).not.toContain('end";');
    const escapes = term.screen({ escapes: true });
    expect(escapes).not.toMatch(COLOR_SGR);
    // Styles other than colour stay: the prompt's cursor is inverse.
    expect(escapes).toContain("\x1b[7m");

    term.resize(120, 40);
    const wide = await term.waitFor('end";', "the diff redrawn at the new width");
    expect(wide.match(/✓ Write long\.js/g)).toHaveLength(1);
  });
});
