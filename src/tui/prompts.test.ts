// The prompts that take the keyboard, as components: keys written to a fake stdin
// (ink-testing-library), frames and callbacks read back.
import { stripVTControlCharacters } from "node:util";
import { render } from "ink-testing-library";
import { createElement, type ReactElement } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PermissionRequest } from "./agent-session.js";
import { ElicitationPrompt } from "./elicitation-prompt.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { PromptBox } from "./prompt-box.js";
import { QuestionPrompt } from "./question-prompt.js";
import type { TrustOffer } from "./trust-offer.js";
import { TrustPrompt, type TrustQuestion } from "./trust-prompt.js";

const KEY = {
  enter: "\r",
  escape: "\u001b",
  up: "\u001b[A",
  down: "\u001b[B",
  backspace: "\u007f",
  shiftTab: "\u001b[Z",
  ctrlC: "\u0003",
  ctrlD: "\u0004",
};
/** How long a wait for a frame or a call may take before the test fails. */
const WAIT_MS = 2000;

let mounted: ReturnType<typeof render> | undefined;
afterEach(() => {
  mounted?.unmount();
  mounted = undefined;
});

/** Renders `element` and waits until it reads keys (its input handler is attached). */
async function mount(element: ReactElement) {
  const app = render(element);
  mounted = app;
  await until(() => app.stdin.listenerCount("readable") > 0, "the component to read keys");
  return {
    frame: () => stripVTControlCharacters(app.lastFrame() ?? ""),
    /** Writes one key (a separate read, as a person's keys come) and lets it be handled. */
    press: async (...keys: string[]) => {
      for (const key of keys) {
        app.stdin.write(key);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    app,
  };
}

/** Polls `check` (bounded) instead of sleeping: renders and effects settle on their own time. */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function frameShows(view: { frame: () => string }, text: string | RegExp): Promise<string> {
  const matches = () => (typeof text === "string" ? view.frame().includes(text) : text.test(view.frame()));
  await until(matches, `the frame to show ${String(text)}; it was:\n${view.frame()}`);
  return view.frame();
}

describe("QuestionPrompt", () => {
  const question = { id: 1, question: "Which branch?", options: ["main", "staging"] };

  it("shows the question and its options; Down then Enter answers the second", async () => {
    const onAnswer = vi.fn();
    const view = await mount(createElement(QuestionPrompt, { question, onAnswer, onCtrlC: vi.fn() }));
    expect(view.frame()).toMatch(/Which branch\?[\s\S]*❯ 1\. main[\s\S]*2\. staging/);
    await view.press(KEY.down);
    await frameShows(view, "❯ 2. staging");
    await view.press(KEY.enter);
    await until(() => onAnswer.mock.calls.length > 0, "the answer");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith("staging");
  });

  it("sends a typed answer over the options, edited with Backspace", async () => {
    const onAnswer = vi.fn();
    const view = await mount(createElement(QuestionPrompt, { question, onAnswer, onCtrlC: vi.fn() }));
    await view.press("d", "e", "v", "x", KEY.backspace);
    await frameShows(view, "Or type an answer: dev");
    expect(view.frame()).not.toContain("❯ 1. main");
    await view.press(KEY.enter);
    await until(() => onAnswer.mock.calls.length > 0, "the answer");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith("dev");
  });

  it("answers nothing on Esc, once; Enter with nothing typed and no options does nothing; Ctrl+C is passed on", async () => {
    const onAnswer = vi.fn();
    const onCtrlC = vi.fn();
    const open = { id: 2, question: "Name?" };
    const view = await mount(createElement(QuestionPrompt, { question: open, onAnswer, onCtrlC }));
    expect(view.frame()).toContain("Your answer:");
    await view.press(KEY.enter, KEY.ctrlC);
    await until(() => onCtrlC.mock.calls.length > 0, "Ctrl+C");
    expect(onAnswer).not.toHaveBeenCalled();
    await view.press(KEY.escape);
    await until(() => onAnswer.mock.calls.length > 0, "the dismissal");
    await view.press(KEY.escape, "x", KEY.enter);
    expect(onAnswer.mock.calls).toEqual([[undefined]]);
  });
});

describe("PermissionPrompt", () => {
  const request = (suggestions: PermissionRequest["suggestions"] = []): PermissionRequest => ({
    toolName: "Bash",
    input: { command: "npm test" },
    toolUseId: "t1",
    reason: "Bash needs approval",
    suggestions,
    answer: vi.fn(),
  });

  it("shows the call and its choices; 2 allows always with the suggested rule", async () => {
    const onChoice = vi.fn();
    const suggestions = [
      {
        type: "addRules" as const,
        behavior: "allow" as const,
        destination: "localSettings" as const,
        rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
      },
    ];
    const view = await mount(
      createElement(PermissionPrompt, { request: request(suggestions), cwd: "/p", onChoice, onCtrlC: vi.fn() }),
    );
    expect(view.frame()).toMatch(/Bash npm test[\s\S]*Allow this call\?[\s\S]*❯ 1\. Yes, once/);
    expect(view.frame()).toContain("2. Yes, and always allow Bash(npm test:*) in this project");
    await view.press("2");
    await until(() => onChoice.mock.calls.length > 0, "the choice");
    expect(onChoice).toHaveBeenCalledExactlyOnceWith({ kind: "always", rules: ["Bash(npm test:*)"] });
  });

  it("denies with the message typed after 3, and Enter on the first choice allows once", async () => {
    const onChoice = vi.fn();
    const view = await mount(
      createElement(PermissionPrompt, { request: request(), cwd: "/p", onChoice, onCtrlC: vi.fn() }),
    );
    await view.press(KEY.down, KEY.down);
    await frameShows(view, "❯ 3. No");
    await view.press(KEY.enter);
    await frameShows(view, "Tell the model:");
    await view.press("u", "s", "e", " ", "y", "a", "r", "n");
    await frameShows(view, "Tell the model: use yarn");
    await view.press(KEY.enter);
    await until(() => onChoice.mock.calls.length > 0, "the choice");
    expect(onChoice).toHaveBeenCalledExactlyOnceWith({ kind: "deny", message: "use yarn" });

    const once = vi.fn();
    mounted?.unmount();
    const again = await mount(
      createElement(PermissionPrompt, { request: request(), cwd: "/p", onChoice: once, onCtrlC: vi.fn() }),
    );
    await again.press(KEY.enter);
    await until(() => once.mock.calls.length > 0, "the choice");
    expect(once).toHaveBeenCalledExactlyOnceWith({ kind: "once" });
  });

  it("denies on Esc, and answers only once however many keys follow", async () => {
    const onChoice = vi.fn();
    const view = await mount(
      createElement(PermissionPrompt, { request: request(), cwd: "/p", onChoice, onCtrlC: vi.fn() }),
    );
    await view.press(KEY.escape, "1", KEY.enter);
    await until(() => onChoice.mock.calls.length > 0, "the choice");
    expect(onChoice.mock.calls).toEqual([[{ kind: "deny", message: "The person denied this call." }]]);
  });
});

describe("PromptBox", () => {
  const keys = (history: string[] = []) => ({
    onSubmit: vi.fn<(text: string) => void>(),
    onInterrupt: vi.fn<() => void>(),
    onCtrlC: vi.fn<() => void>(),
    onQuit: vi.fn<() => void>(),
    onCycleMode: vi.fn<() => void>(),
    history: () => history,
    suggest: () => [],
  });

  it("submits what is typed on Enter and empties the box; a backslash before Enter adds a line", async () => {
    const handlers = keys();
    const view = await mount(createElement(PromptBox, { keys: handlers, active: true }));
    await view.press("h", "i", "\\", KEY.enter, "y", "o");
    await frameShows(view, /❯ hi\s*│\n│\s+yo/);
    expect(handlers.onSubmit).not.toHaveBeenCalled();
    await view.press(KEY.enter);
    await until(() => handlers.onSubmit.mock.calls.length > 0, "the submit");
    expect(handlers.onSubmit).toHaveBeenCalledExactlyOnceWith("hi\nyo");
    await until(() => !view.frame().includes("yo"), "the box to empty");
  });

  it("walks the history with Up and Down, and passes Esc, Shift+Tab, Ctrl+C and Ctrl+D (on an empty box) on", async () => {
    const handlers = keys(["first", "second"]);
    const view = await mount(createElement(PromptBox, { keys: handlers, active: true }));
    await view.press(KEY.up);
    await frameShows(view, "❯ second");
    await view.press(KEY.up);
    await frameShows(view, "❯ first");
    await view.press(KEY.down);
    await frameShows(view, "❯ second");
    await view.press(KEY.ctrlD);
    expect(handlers.onQuit).not.toHaveBeenCalled();
    await view.press(KEY.escape, KEY.shiftTab, KEY.ctrlC);
    await until(() => handlers.onCtrlC.mock.calls.length > 0, "Ctrl+C");
    expect(handlers.onInterrupt).toHaveBeenCalledOnce();
    expect(handlers.onCycleMode).toHaveBeenCalledOnce();
    for (let i = 0; i < "second".length; i++) await view.press(KEY.backspace);
    await until(() => !view.frame().includes("second"), "the box to empty");
    await view.press(KEY.ctrlD);
    await until(() => handlers.onQuit.mock.calls.length > 0, "Ctrl+D");
  });

  it("ignores keys while inactive (a question has the keyboard), and reads them once active again", async () => {
    const handlers = keys();
    const app = render(createElement(PromptBox, { keys: handlers, active: false }));
    mounted = app;
    app.stdin.write("x");
    app.stdin.write(KEY.enter);
    app.rerender(createElement(PromptBox, { keys: handlers, active: true }));
    await until(() => app.stdin.listenerCount("readable") > 0, "the box to read keys");
    app.stdin.write("y");
    await until(() => /❯ y/.test(stripVTControlCharacters(app.lastFrame() ?? "")), "the box to show y");
    expect(stripVTControlCharacters(app.lastFrame() ?? "")).not.toContain("x");
    expect(handlers.onSubmit).not.toHaveBeenCalled();
  });
});

describe("ElicitationPrompt", () => {
  const request = {
    serverName: "calls",
    message: "Your details?",
    mode: "form" as const,
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, colour: { type: "string", enum: ["red", "green"] } },
      required: ["name"],
    },
  };

  it("fills the form field by field: a required field is insisted on, a choice is picked with the arrows", async () => {
    const onAnswer = vi.fn();
    const view = await mount(createElement(ElicitationPrompt, { request, onAnswer, onCtrlC: vi.fn() }));
    expect(view.frame()).toMatch(/MCP server calls asks: Your details\?[\s\S]*❯ 1\. Answer[\s\S]*2\. Decline/);
    await view.press(KEY.enter);
    await frameShows(view, "1/2 name (required)");
    await view.press(KEY.enter);
    await frameShows(view, "name is required");
    await view.press("A", "d", "a", KEY.enter);
    await frameShows(view, "2/2 colour (one of: red, green; optional)");
    await view.press(KEY.down, KEY.down);
    await frameShows(view, "❯ green");
    await view.press(KEY.enter);
    await until(() => onAnswer.mock.calls.length > 0, "the answer");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "accept", content: { name: "Ada", colour: "green" } });
  });

  it("declines with 2, and cancels with Esc in the middle of the form", async () => {
    const declined = vi.fn();
    const view = await mount(createElement(ElicitationPrompt, { request, onAnswer: declined, onCtrlC: vi.fn() }));
    await view.press("2");
    await until(() => declined.mock.calls.length > 0, "the answer");
    expect(declined).toHaveBeenCalledExactlyOnceWith({ action: "decline" });
    mounted?.unmount();

    const cancelled = vi.fn();
    const form = await mount(createElement(ElicitationPrompt, { request, onAnswer: cancelled, onCtrlC: vi.fn() }));
    await form.press("1");
    await frameShows(form, "1/2 name");
    await form.press("x", KEY.escape);
    await until(() => cancelled.mock.calls.length > 0, "the answer");
    expect(cancelled).toHaveBeenCalledExactlyOnceWith({ action: "cancel" });
  });

  it("shows a URL request's page, and Enter says it is done", async () => {
    const onAnswer = vi.fn();
    const url = { serverName: "auth", message: "Sign in", mode: "url" as const, url: "https://example.com/login" };
    const view = await mount(createElement(ElicitationPrompt, { request: url, onAnswer, onCtrlC: vi.fn() }));
    expect(view.frame()).toContain("Open https://example.com/login to answer.");
    await view.press(KEY.enter);
    await until(() => onAnswer.mock.calls.length > 0, "the answer");
    expect(onAnswer).toHaveBeenCalledExactlyOnceWith({ action: "accept" });
  });
});

describe("TrustPrompt", () => {
  const offer: TrustOffer = {
    folder: "/work/repo",
    settings: [{ file: ".gyre/settings.json", allow: ["Bash(npm test:*)"], hooks: ["Stop ./notify.sh"], other: [] }],
    mcpServers: [{ name: "docs", runs: "npx docs" }],
    agents: [],
    problems: [],
    ignored: { folder: "/work/repo", files: [] },
  };
  const question = (saved?: TrustQuestion["saved"]): TrustQuestion => ({
    id: 1,
    offer,
    ...(saved && { saved }),
    answer: vi.fn(),
  });

  it("shows the folder and what it asks for; 2 trusts for this session only", async () => {
    const onAnswer = vi.fn();
    const view = await mount(createElement(TrustPrompt, { question: question(), onAnswer, onCtrlC: vi.fn() }));
    expect(view.frame()).toMatch(/Do you trust the files in this folder\?[\s\S]*\/work\/repo/);
    expect(view.frame()).toMatch(
      /\.gyre\/settings\.json[\s\S]*allow: Bash\(npm test:\*\)[\s\S]*hook: Stop \.\/notify\.sh/,
    );
    expect(view.frame()).toMatch(/MCP servers \(\.mcp\.json\)[\s\S]*docs: npx docs/);
    expect(view.frame()).toMatch(/❯ 1\. Yes, trust this folder[\s\S]*2\. Yes, for this session only[\s\S]*3\. No/);
    await view.press("2", "1");
    await until(() => onAnswer.mock.calls.length > 0, "the answer");
    expect(onAnswer.mock.calls).toEqual([["session"]]);
  });

  it("Esc is no; Down, Down and Enter is no too; Ctrl+C is passed on", async () => {
    const escaped = vi.fn();
    const onCtrlC = vi.fn();
    const view = await mount(createElement(TrustPrompt, { question: question(), onAnswer: escaped, onCtrlC }));
    await view.press(KEY.ctrlC, KEY.escape);
    await until(() => escaped.mock.calls.length > 0, "the answer");
    expect(escaped.mock.calls).toEqual([["no"]]);
    expect(onCtrlC).toHaveBeenCalledOnce();
    mounted?.unmount();

    const walked = vi.fn();
    const again = await mount(createElement(TrustPrompt, { question: question(), onAnswer: walked, onCtrlC }));
    await again.press(KEY.down, KEY.down);
    await frameShows(again, "❯ 3. No");
    await again.press(KEY.enter);
    await until(() => walked.mock.calls.length > 0, "the answer");
    expect(walked.mock.calls).toEqual([["no"]]);
  });

  it("after 'always allow' names the saved rule and offers yes or no only", async () => {
    const onAnswer = vi.fn();
    const saved = { rules: ["Bash(touch made.txt)"], file: ".gyre/settings.local.json" };
    const view = await mount(createElement(TrustPrompt, { question: question(saved), onAnswer, onCtrlC: vi.fn() }));
    expect(view.frame()).toContain("Bash(touch made.txt) is saved in .gyre/settings.local.json");
    expect(view.frame()).toContain("❯ 1. Yes, trust this folder: the rule sticks");
    expect(view.frame()).toContain("2. No, allow it for this session only");
    expect(view.frame()).not.toContain("3.");
    await view.press("3", "1");
    await until(() => onAnswer.mock.calls.length > 0, "the answer");
    expect(onAnswer.mock.calls).toEqual([["trust"]]);
  });
});
