// AskUserQuestion and ExitPlanMode in the interactive agent, end to end: the built `gyre` in a
// real terminal (tmux) against the scripted mock LLM; the person's answers reach the model as
// the tools' results, and an approved plan leaves plan mode.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { gyreTerminals, sendPrompt } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("tui-ask-plan", async () => {
  await server?.close();
  server = undefined;
});

async function startGyre(script: MockScript, args: string[] = [], cwd?: string): Promise<TmuxTerminal> {
  server = await startMockLLM({ script });
  const env = cliEnv(server.env());
  return terminals.startReady({
    cwd: cwd ?? mkdtempSync(join(tmpdir(), "gyre-tui-ask-user-")),
    args,
    env: { GYRE_HOME: env.GYRE_HOME ?? "", ...server.env() },
  });
}

/** The text of the tool result the model got last. */
function lastToolResult(): string {
  const messages = (server?.requests.at(-1)?.body.messages ?? []) as Array<{ content: unknown }>;
  const blocks = messages.at(-1)?.content as Array<{ type: string; content?: unknown }>;
  return JSON.stringify(blocks.find((block) => block.type === "tool_result")?.content);
}

const QUESTIONS = [
  {
    question: "Which date library should we use?",
    header: "Library",
    options: [
      { label: "date-fns", description: "Small functions, tree-shakable" },
      { label: "Luxon", description: "Time zones built in" },
    ],
    multiSelect: false,
  },
  {
    question: "Which formats do you need?",
    header: "Formats",
    options: [
      { label: "ISO", description: "2026-11-29" },
      { label: "US", description: "11/29/2026" },
      { label: "EU", description: "29.11.2026" },
    ],
    multiSelect: true,
  },
];

describe("AskUserQuestion's picker in a real terminal", () => {
  it("picks one option, ticks several with Space, and the model gets the answers", async () => {
    const term = await startGyre({
      turns: [mockTurn.toolUse("AskUserQuestion", { questions: QUESTIONS }), mockTurn.text("Going with Luxon.")],
    });
    await sendPrompt(term, "add date formatting");
    const first = await term.waitFor("Which date library should we use?");
    expect(first).toContain("Library");
    expect(first).toMatch(/❯ 1\. date-fns/);
    expect(first).toContain("Time zones built in");
    expect(first).toContain("(1/2)");
    term.press("Down");
    await term.waitFor(/❯ 2\. Luxon/, "the second option under the cursor");
    term.press("Enter");
    await term.waitFor("Which formats do you need?");
    term.press("Space");
    await term.waitFor(/❯ 1\. \[x\] ISO/, "ISO ticked");
    term.press("Down");
    term.press("Down");
    await term.waitFor(/❯ 3\. \[ \] EU/, "the cursor on EU");
    term.press("Space");
    await term.waitFor(/❯ 3\. \[x\] EU/, "EU ticked");
    term.press("Enter");
    await term.waitFor("Going with Luxon.");
    expect(lastToolResult()).toContain(
      '\\"Which date library should we use?\\"=\\"Luxon\\", \\"Which formats do you need?\\"=\\"ISO, EU\\"',
    );
    // The prompt box has the keyboard again.
    await sendPrompt(term, "thanks");
  });

  it("takes an answer typed in the person's own words, and Esc declines (the model is told)", async () => {
    const one = [{ ...QUESTIONS[0]!, question: "Which library, then?" }];
    const term = await startGyre({
      turns: [
        mockTurn.toolUse("AskUserQuestion", { questions: one }),
        mockTurn.toolUse("AskUserQuestion", { questions: QUESTIONS }),
        mockTurn.text("No answers, I'll pick."),
      ],
    });
    await sendPrompt(term, "add date formatting");
    await term.waitFor("Which library, then?");
    term.type("Temporal API");
    await term.waitFor("Or type an answer: Temporal API");
    term.press("Enter");
    await term.waitFor("Which date library should we use?");
    expect(lastToolResult()).toContain('\\"Which library, then?\\"=\\"Temporal API\\"');
    term.press("Escape");
    await term.waitFor("No answers, I'll pick.");
    await term.waitFor("Questions declined.");
    expect(lastToolResult()).toContain("The person declined to answer the questions.");
  });
});

describe("ExitPlanMode in a real terminal", () => {
  const PLAN = "1. Write notes.txt\n2. Report back";

  it("shows the plan; approving with auto-accept leaves plan mode and the edit runs unasked", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-plan-"));
    const file = join(cwd, "notes.txt");
    const term = await startGyre(
      {
        turns: [
          mockTurn.toolUse("ExitPlanMode", { plan: PLAN }),
          mockTurn.toolUse("Write", { file_path: file, content: "planned\n" }),
          mockTurn.text("Plan carried out."),
        ],
      },
      ["--permission-mode", "plan"],
      cwd,
    );
    await term.waitFor(/plan/, "the status line in plan mode");
    await sendPrompt(term, "write the notes");
    const shown = await term.waitFor("Would you like to proceed?");
    expect(shown).toContain("Write notes.txt");
    expect(shown).toMatch(/❯ 1\. Yes, and auto-accept edits/);
    term.press("Enter");
    await term.waitFor("Plan carried out.");
    expect(readFileSync(file, "utf8")).toBe("planned\n");
    await term.waitFor("acceptEdits", "the status line in acceptEdits mode");
  });

  it("keeps planning with the person's feedback: the model reads it, and edits stay refused", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-plan-"));
    const file = join(cwd, "notes.txt");
    const term = await startGyre(
      {
        turns: [
          mockTurn.toolUse("ExitPlanMode", { plan: PLAN }),
          mockTurn.toolUse("Write", { file_path: file, content: "too soon\n" }),
          mockTurn.text("Back to planning."),
        ],
      },
      ["--permission-mode", "plan"],
      cwd,
    );
    await sendPrompt(term, "write the notes");
    await term.waitFor("Would you like to proceed?");
    term.press("3");
    await term.waitFor("What should change:");
    term.type("cover errors too");
    await term.waitFor("What should change: cover errors too");
    term.press("Enter");
    await term.waitFor("Back to planning.");
    const bodies = (server?.requests ?? []).map((request) => JSON.stringify(request.body));
    expect(bodies[1]).toContain("cover errors too");
    expect(bodies[2]).toContain("not available in plan mode");
    expect(existsSync(file)).toBe(false);
  });
});
