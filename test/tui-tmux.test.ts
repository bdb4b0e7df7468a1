// The interactive agent end to end: the built `gyre` in a real terminal (tmux) against the
// scripted mock LLM, typed at with send-keys and read with capture-pane.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { GYRE_CLI as CLI, gyreTerminals, sendPrompt, waitForProcess } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("tui", async () => {
  await server?.close();
  server = undefined;
});
const send = sendPrompt;

/**
 * Starts the mock with `script` and `gyre ARGS` in a fresh project folder, with a home folder of
 * its own (no trust decision or user setting of the developer's reaches it); waits for the prompt.
 */
async function startGyre(
  script: MockScript | ((cwd: string) => MockScript),
  args: string[] = [],
  cwd = mkdtempSync(join(tmpdir(), "gyre-tui-")),
): Promise<{ term: TmuxTerminal; cwd: string }> {
  server = await startMockLLM({ script: typeof script === "function" ? script(cwd) : script });
  const env = cliEnv(server.env());
  const home = mkdtempSync(join(tmpdir(), "gyre-tui-home-"));
  const term = await terminals.startReady({
    cwd,
    args,
    env: { GYRE_HOME: env.GYRE_HOME ?? "", HOME: home, ...server.env() },
  });
  return { term, cwd };
}

describe("gyre, the interactive agent, in a real terminal", () => {
  it("streams an answer, renders its code block apart, and shows a tool call's line change state", async () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    const { term } = await startGyre(
      {
        turns: [
          mockTurn.text(`Streaming starts ${words} END-OF-ANSWER\n\n\`\`\`js\nconsole.log("set apart")\n\`\`\``, {
            chunkDelayMs: 40,
          }),
          mockTurn.toolUse("Bash", { command: "sleep 1.5; exit 3" }),
          mockTurn.text("The command failed."),
        ],
      },
      ["--allowed-tools", "Bash"],
    );
    await send(term, "hello");
    // Part of the answer is on screen before the rest has come.
    const partial = await term.waitFor("Streaming starts", "the first words of the answer");
    expect(partial).not.toContain("END-OF-ANSWER");
    const full = await term.waitFor("END-OF-ANSWER");
    await term.waitFor(/│ console\.log\("set apart"\)\s*│/, "the code block in its own box");
    expect(full).toContain("❯ hello");

    await send(term, "run it");
    await term.waitFor(/Bash sleep 1\.5; exit 3 running \d+s/, "the Bash line to show it is running");
    const done = await term.waitFor(/✗ Bash sleep 1\.5; exit 3 → exit 3/, "the Bash line to show it failed");
    expect(done).not.toMatch(/running \d+s/);
    await term.waitFor("The command failed.");
  });

  it("asks before a call, and 'always' writes the rule to .gyre/settings.local.json and stops asking", async () => {
    const { term, cwd } = await startGyre({
      turns: [
        mockTurn.toolUse("Bash", { command: "touch made.txt" }),
        mockTurn.toolUse("Bash", { command: "touch made.txt" }),
        mockTurn.text("Both calls ran."),
      ],
    });
    await send(term, "make the file");
    await term.waitFor("Allow this call?");
    await term.waitFor("always allow Bash(touch made.txt) in this project");
    term.press("2");
    // The folder is not trusted, so the next session would ignore the rule: trusting it is
    // offered (test/tui-trust-tmux.test.ts answers yes); "no" keeps the rule for this session.
    await term.waitFor("Do you trust the files in this folder?");
    term.press("2");
    await term.waitFor("is allowed for this session only");
    // The second, identical call runs without a question: the answer comes.
    const screen = await term.waitFor("Both calls ran.");
    expect(screen).not.toContain("Allow this call?");
    expect(screen.match(/✓ Bash touch made\.txt → exit 0/g)).toHaveLength(2);
    expect(existsSync(join(cwd, "made.txt"))).toBe(true);
    expect(JSON.parse(readFileSync(join(cwd, ".gyre", "settings.local.json"), "utf8"))).toEqual({
      permissions: { allow: ["Bash(touch made.txt)"] },
    });
  });

  it("denies with a message the model gets", async () => {
    const { term } = await startGyre({
      turns: [mockTurn.toolUse("Bash", { command: "rm -rf build" }), mockTurn.text("Understood, I will not.")],
    });
    await send(term, "clean up");
    await term.waitFor("Allow this call?");
    term.press("3");
    await term.waitFor("Tell the model:");
    term.type("keep the build folder");
    await term.waitFor("Tell the model: keep the build folder");
    term.press("Enter");
    await term.waitFor("Understood, I will not.");
    const denied = JSON.stringify(server?.requests.at(-1)?.body);
    expect(denied).toContain("keep the build folder");
  });

  it("interrupts the turn with Ctrl+C while a permission question is open", async () => {
    const { term } = await startGyre({ turns: [mockTurn.toolUse("Bash", { command: "touch never.txt" })] });
    await send(term, "try it");
    await term.waitFor("Allow this call?");
    term.press("C-c");
    const screen = await term.waitFor("Interrupted.");
    expect(screen).not.toContain("Allow this call?");
    expect(screen).toContain("Press Ctrl+C again to quit");
  });

  it("interrupts a long Bash command with Esc: its process is gone and the session goes on", async () => {
    const { term } = await startGyre(
      { turns: [mockTurn.toolUse("Bash", { command: "sleep 37.25" }), mockTurn.text("Back on track.")] },
      ["--allowed-tools", "Bash"],
    );
    await send(term, "wait a while");
    await term.waitFor(/Bash sleep 37\.25 running \d+s/);
    await waitForProcess("sleep 37.25", true);
    term.press("Escape");
    await term.waitFor("Interrupted.");
    await term.waitFor(/✗ Bash sleep 37\.25 interrupted/);
    await waitForProcess("sleep 37.25", false);
    // The next prompt resumes the same session: the model sees the earlier turn (history mode
    // answers the second turn only when the conversation holds the first).
    await send(term, "go on");
    await term.waitFor("Back on track.");
  });

  it("cycles the permission mode with Shift+Tab, and the mode applies to the next call", async () => {
    const { term, cwd } = await startGyre((dir) => ({
      turns: [
        mockTurn.toolUse("Write", { file_path: join(dir, "notes.md"), content: "hi\n" }),
        mockTurn.text("Written."),
      ],
    }));
    await term.waitFor(/· default ·/);
    term.press("BTab");
    await term.waitFor(/· acceptEdits ·/);
    term.press("BTab");
    await term.waitFor(/· plan ·/);
    term.press("BTab");
    await term.waitFor(/· default ·/);
    term.press("BTab");
    await term.waitFor(/· acceptEdits ·/);
    await send(term, "write notes");
    const screen = await term.waitFor("Written.");
    expect(screen).not.toContain("Allow this call?");
    expect(screen).toMatch(/✓ Write notes\.md/);
    expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("hi\n");
  });

  it("starts a new session with /clear", async () => {
    const { term } = await startGyre({ turns: [mockTurn.text("Answer one."), mockTurn.text("Answer two.")] });
    await send(term, "first");
    await term.waitFor("Answer one.");
    await send(term, "/clear");
    const cleared = await term.waitFor("New session.");
    expect(cleared).not.toContain("Answer one.");
    // A fresh history: the model answers as to a first prompt again.
    await send(term, "again");
    const screen = await term.waitFor("Answer one.");
    expect(screen).not.toContain("Answer two.");
  });

  it("quits with Ctrl+D on an empty prompt, saying how to resume the session", async () => {
    const { term } = await startGyre({ turns: [mockTurn.text("Hi.")] });
    await send(term, "hello");
    await term.waitFor("Hi.");
    term.type("draft");
    await term.waitFor("❯ draft");
    term.press("C-d");
    // Not on a prompt that holds text: it is still there.
    term.press("BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
    await term.waitUntil((screen) => !screen.includes("❯ draft"), "the draft to be erased");
    term.press("C-d");
    const screen = await term.waitFor("[exited 0]");
    // Wrapped lines joined back. A checkout has no gyre on the PATH: the hint names the executable.
    const hint = /Go on with: (.*?) --resume [0-9a-f-]{36}/.exec(screen.replace(/\n/g, ""))?.[1];
    expect(hint).toBe(`node ${realpathSync(CLI)}`);
  });

  it("sends a multi-line prompt, answers /help, /model and /cost, and keeps the history per project", async () => {
    const { term, cwd } = await startGyre({ turns: [mockTurn.text("Got both lines."), mockTurn.text("Again.")] });
    term.type("line one\\");
    await term.waitFor("❯ line one\\");
    // Enter and the next line in one read, as a fast typist's keys reach a busy terminal.
    term.type("\rline two");
    await term.waitFor(/❯ line one\s*│\n│\s+line two/, "the second line under the first");
    term.press("Enter");
    await term.waitFor("Got both lines.");
    expect(JSON.stringify(server?.requests[0]?.body)).toContain("line one\\nline two");
    await send(term, "/help");
    await term.waitFor("/compact");
    await send(term, "/model");
    await term.waitFor("Model: anthropic/claude-sonnet-5-5");
    await send(term, "/cost");
    await term.waitFor(/Session cost: \$\d+\.\d{4}/);
    term.press("C-d");
    await term.waitFor("[exited 0]");
    terminals.kill();
    await server?.close();
    // A new start in the same folder walks the same history with Up (newest first).
    const again = await startGyre({ turns: [mockTurn.text("unused")] }, [], cwd);
    again.term.press("Up");
    await again.term.waitFor("❯ /cost");
    again.term.press("Up", "Up", "Up");
    await again.term.waitFor(/❯ line one\s*│\n│\s+line two/, "the two-line prompt back in the box");
  });

  it("sends text and Enter that arrive in one write, and keeps an unbracketed multi-line paste as lines", async () => {
    const { term } = await startGyre({ turns: [mockTurn.text("Sent at once.")] });
    // Literal text with its line ends, no bracketed paste: two line ends are a paste, not a send.
    term.type("first\rsecond\r");
    await term.waitFor(/❯ first\s*│\n│\s+second/, "the pasted lines in the box");
    term.press(...Array<string>(14).fill("BSpace"));
    await term.waitUntil((screen) => !screen.includes("first"), "the paste to be erased");
    // `tmux send-keys 'x' Enter` in one write, as a fast typist or a one-line paste with its line end.
    term.type("hello at once\r");
    await term.waitFor("Sent at once.");
    expect(JSON.stringify(server?.requests[0]?.body)).toContain("hello at once");
  });

  it("quits with Ctrl+C twice", async () => {
    const { term } = await startGyre({ turns: [mockTurn.text("Hi.")] });
    term.press("C-c");
    await term.waitFor("Press Ctrl+C again to quit");
    term.press("C-c");
    await term.waitFor("[exited 0]");
  });
});

describe("gyre without a terminal", () => {
  const run = promisify(execFile);

  it("prints the help when given no arguments, and runs a prompt in print mode, saying so", async () => {
    const help = await run(process.execPath, [CLI], { env: cliEnv() });
    expect(help.stdout).toContain("gyre run");
    const mock = await startMockLLM({ script: { turns: [mockTurn.text("Printed.")] } });
    try {
      const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-"));
      writeFileSync(join(cwd, "README.md"), "x");
      const printed = await run(process.execPath, [CLI, "say it", "--cwd", cwd], { env: cliEnv(mock.env()) });
      expect(printed.stdout).toBe("Printed.\n");
      expect(printed.stderr).toContain("not a terminal");
    } finally {
      await mock.close();
    }
  });
});
