// The interactive agent's first hour (issue 29): waiting on the model shows a spinner and the
// time, /model checks a model when it is chosen, --continue shows the session it goes on with
// and /compact compacts it, and a denial nobody was asked about says what would allow it. The
// built `gyre` in a real terminal (tmux) against the scripted mock LLM.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { gyreTerminals, sendPrompt } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("tui-first-hour", async () => {
  await server?.close();
  server = undefined;
});
const send = sendPrompt;

/** A project folder and a home of its own. */
function folders(): { cwd: string; home: string } {
  return {
    cwd: mkdtempSync(join(tmpdir(), "gyre-tui-hour-")),
    home: mkdtempSync(join(tmpdir(), "gyre-tui-hour-home-")),
  };
}

/** Starts the mock with `script` and `gyre ARGS` in `where`; waits for the prompt. */
async function startGyre(
  script: MockScript,
  where: { cwd: string; home: string },
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<TmuxTerminal> {
  server = await startMockLLM({ script });
  return terminals.startReady({
    cwd: where.cwd,
    args,
    env: { GYRE_HOME: cliEnv().GYRE_HOME ?? "", HOME: where.home, ...server.env(), ...env },
  });
}

/** Quits, closes the terminal and the mock; resolves with the session id gyre printed. */
async function quit(term: TmuxTerminal): Promise<string> {
  term.press("C-d");
  const ended = await term.waitFor("[exited 0]");
  terminals.kill();
  await server?.close();
  server = undefined;
  // Wrapped lines joined back: the hint names the executable's path, which may wrap.
  return /Go on with: .*? --resume ([0-9a-f-]{36})/.exec(ended.replace(/\n/g, ""))?.[1] ?? "";
}

/** The screen with its wrapped lines joined: a long notice reads as one line. */
function flat(screen: string): string {
  return screen.replace(/\s*\n\s*/g, " ");
}

describe("the interactive agent's first hour, in a real terminal", () => {
  it("shows a spinner and the seconds waited while the model has not answered", async () => {
    // The model holds its answer (a client abort ends the wait).
    const term = await startGyre({ turns: [mockTurn.text("Late answer.", { delayMs: 120_000 })] }, folders());
    await send(term, "hello");
    await term.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Waiting for the model… \d+s/, "the spinner as the wait starts");
    // The time goes on while the model says nothing.
    await term.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Waiting for the model… [1-9]\d*s/, "the seconds to count");
    term.press("Escape");
    await term.waitFor("Interrupted.");
    await term.waitUntil((screen) => !screen.includes("Waiting for the model"), "the spinner to go");
  });

  it("/model refuses a model that cannot answer, with the reason, and keeps the one it had", async () => {
    const term = await startGyre(
      { turns: [mockTurn.text("Still here.")] },
      folders(),
      ["--model", "anthropic/claude-sonnet-4-5"],
      { OPENAI_API_KEY: "" },
    );
    await send(term, "/model nonsense/xyz");
    let screen = flat(await term.waitFor("Cannot use nonsense/xyz"));
    expect(screen).toContain('Unknown model provider "nonsense"');
    expect(screen).toContain("Still using anthropic/claude-sonnet-4-5.");
    await send(term, "/model gpt-5");
    screen = flat(await term.waitFor("Cannot use gpt-5"));
    expect(screen).toContain("OPENAI_API_KEY");
    // The session goes on with its model: the next prompt is answered.
    await send(term, "are you there?");
    screen = await term.waitFor("Still here.");
    expect(screen).toMatch(/anthropic\/claude-sonnet-4-5 · default/);
    expect(JSON.stringify(server?.requests.at(-1)?.body)).toContain("claude-sonnet-4-5");
  });

  it("--continue shows the session it goes on with; /compact then compacts its history", async () => {
    const where = folders();
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.text("Answer one."),
        mockTurn.text("The person asked for one answer and got it."),
        mockTurn.text("Answer two."),
      ],
    };
    let term = await startGyre(script, where);
    await send(term, "the first conversation");
    await term.waitFor("Answer one.");
    const id = await quit(term);
    expect(id).not.toBe("");

    term = await startGyre({ ...script, turns: script.turns.slice(1) }, where, ["--continue"]);
    const shown = flat(await term.waitFor("Your next prompt goes on with it."));
    expect(shown).toContain(`Continuing session ${id} “the first conversation”`);
    expect(shown).toContain("❯ the first conversation");
    expect(shown).toContain("Answer one.");

    await send(term, "/compact");
    await term.waitFor("The conversation is compacted before the next model call.");
    await send(term, "and now?");
    const after = await term.waitFor("Answer two.");
    expect(after).toContain("Conversation compacted.");
    // The summary was asked of the model with the loaded history, and the prompt went on from it.
    expect(server?.requests).toHaveLength(2);
    expect(JSON.stringify(server?.requests[0]?.body)).toMatch(/summary of the conversation.*Answer one\./);
    expect(JSON.stringify(server?.requests[1]?.body)).toContain("The person asked for one answer and got it.");
  });

  it("a call denied without asking (dontAsk) says in the transcript what would allow it", async () => {
    const term = await startGyre(
      { turns: [mockTurn.toolUse("Bash", { command: "touch made.txt" }), mockTurn.text("I could not.")] },
      folders(),
      ["--permission-mode", "dontAsk"],
    );
    await send(term, "make it");
    const screen = flat(await term.waitFor("I could not."));
    expect(screen).toContain("Bash denied: Permission to use Bash was not granted");
    expect(screen).toContain('start gyre with --allowed-tools "Bash(touch made.txt)"');
    expect(screen).toContain("Or leave dontAsk mode with Shift+Tab");
    expect(screen).not.toContain("canUseTool");
  });
});
