// What a person can type in the interactive agent, end to end: the built `gyre` in a real
// terminal (tmux) against the scripted mock LLM — their own slash commands, completion,
// @file mentions, !commands, /resume and the informational commands.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { gyreTerminals, sendPrompt, waitForProcess } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("tui-input", async () => {
  await server?.close();
  server = undefined;
});
const send = sendPrompt;

async function stop(): Promise<void> {
  terminals.kill();
  await server?.close();
  server = undefined;
}

/** A project folder and a home folder of its own (for `~/.claude/commands`), with files written in them. */
function folders(files: Record<string, string> = {}): { cwd: string; home: string } {
  const cwd = mkdtempSync(join(tmpdir(), "gyre-tui-input-"));
  const home = mkdtempSync(join(tmpdir(), "gyre-tui-home-"));
  for (const [path, text] of Object.entries(files)) {
    const target = path.startsWith("~/") ? join(home, path.slice(2)) : join(cwd, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return { cwd, home };
}

/** Starts the mock with `script` and `gyre ARGS` in `cwd` (with `home` as HOME); waits for the prompt. */
async function startGyre(
  script: MockScript,
  where: { cwd: string; home: string },
  args: string[] = [],
): Promise<TmuxTerminal> {
  server = await startMockLLM({ script });
  const env = cliEnv(server.env());
  return terminals.startReady({
    cwd: where.cwd,
    args,
    env: { GYRE_HOME: env.GYRE_HOME ?? "", HOME: where.home, ...server.env() },
  });
}

/** What the model was sent last, as JSON text. */
function lastRequest(): string {
  return JSON.stringify(server?.requests.at(-1)?.body ?? null);
}

describe("typing in the interactive agent, in a real terminal", () => {
  it("runs the person's own slash commands, offers them in completion and lists them in /help", async () => {
    const where = folders({
      ".claude/commands/greet.md":
        "---\ndescription: Greet someone\nargument-hint: [name]\n---\nSay hello to $ARGUMENTS politely.",
      ".gyre/commands/git/recap.md": "Recap the last commit of $1 in $2 words.",
      "~/.claude/commands/mine.md": "A command of the user's own.",
    });
    const turns = [mockTurn.text("Hello, Ada."), mockTurn.text("Hello, Grace."), mockTurn.text("Recapped.")];
    const term = await startGyre({ turns }, where);
    term.type("/gr");
    await term.waitFor(/\/greet Greet someone \[name\] \(project\)/, "the command offered under the prompt");
    term.press("Tab");
    // In the box (the list under it marks its choice with ❯ too).
    await term.waitFor("│ ❯ /greet ", "Tab to complete the command");
    term.type("Ada Lovelace");
    await term.waitFor("│ ❯ /greet Ada Lovelace");
    term.press("Enter");
    await term.waitFor("Hello, Ada.");
    expect(lastRequest()).toContain("Say hello to Ada Lovelace politely.");

    // Tab and the next keys in one read, as a fast typist's reach a busy terminal.
    term.type("/gr");
    await term.waitFor(/\/greet Greet someone \[name\] \(project\)/, "the command offered again");
    term.type("\tGrace");
    await term.waitFor("│ ❯ /greet Grace", "the completion taken, then the name typed");
    term.press("Enter");
    await term.waitFor("Hello, Grace.");
    expect(lastRequest()).toContain("Say hello to Grace politely.");

    await send(term, '/git:recap main "twenty five"');
    await term.waitFor("Recapped.");
    expect(lastRequest()).toContain("Recap the last commit of main in twenty five words.");

    await send(term, "/help");
    const help = await term.waitFor("Your commands");
    expect(help).toMatch(/\/git:recap\s+Recap the last commit of \$1 in \$2 words\. \(project\)/);
    expect(help).toMatch(/\/mine\s+A command of the user's own\. \(user\)/);
  });

  it("runs a command's turn with the model its front matter names, then goes back to the session's", async () => {
    const where = folders({
      ".claude/commands/quick.md": "---\nmodel: anthropic/claude-haiku-4-5\n---\nAnswer quickly: $ARGUMENTS",
    });
    const term = await startGyre(
      { mode: "sequential", turns: [mockTurn.text("Quick one."), mockTurn.text("Slow one.")] },
      where,
    );
    await send(term, "/quick why?");
    await term.waitFor("Quick one.");
    expect(server?.requests.at(-1)?.body).toMatchObject({ model: "claude-haiku-4-5" });
    await term.waitFor(/claude-sonnet-5-5 · default/, "the status line back on the session's model");
    await send(term, "and slowly?");
    await term.waitFor("Slow one.");
    expect(server?.requests.at(-1)?.body).toMatchObject({ model: "claude-sonnet-5-5" });
  });

  it("completes @paths from the project's files and attaches the file's content to the prompt", async () => {
    const where = folders({
      "docs/notes.txt": "The launch code is PURPLE-42.\n",
      "docs/nothing.md": "",
      ".gitignore": "secret/\n",
      "secret/notes-private.txt": "hidden",
    });
    const term = await startGyre({ turns: [mockTurn.text("It says PURPLE-42.")] }, where);
    term.type("what does @no");
    const list = await term.waitFor("@docs/notes.txt", "the file offered under the prompt");
    expect(list).not.toContain("notes-private");
    term.press("Down");
    await term.waitFor(/❯ @docs\/nothing\.md/, "Down to select the next file");
    term.press("Up", "Tab");
    await term.waitFor("❯ what does @docs/notes.txt ", "Tab to put the path in");
    term.type("say?");
    await term.waitFor("@docs/notes.txt say?");
    term.press("Enter");
    await term.waitFor("It says PURPLE-42.");
    await term.waitFor("Attached docs/notes.txt");
    const request = lastRequest();
    expect(request).toContain("what does @docs/notes.txt say?");
    expect(request).toContain("The launch code is PURPLE-42.");
  });

  it("runs a !command as typed, shows its output, and gives it to the model with the next prompt", async () => {
    const where = folders();
    const term = await startGyre({ turns: [mockTurn.text("I saw the output.")] }, where);
    await send(term, "!echo bang-$((6*7)) > out.txt; cat out.txt; echo warned >&2");
    await term.waitFor(/^bang-42$/m, "the command's output");
    await term.waitFor(/^warned$/m);
    expect(readFileSync(join(where.cwd, "out.txt"), "utf8")).toBe("bang-42\n");
    expect(server?.requests).toHaveLength(0);
    await send(term, "what happened?");
    await term.waitFor("I saw the output.");
    const request = lastRequest();
    expect(request).toContain("what happened?");
    expect(request).toContain("<bash-input>echo bang-$((6*7)) > out.txt; cat out.txt; echo warned >&2</bash-input>");
    expect(request).toContain("<bash-stdout>bang-42\\n</bash-stdout><bash-stderr>warned\\n</bash-stderr>");
  });

  it("stops a long !command with Esc: its processes are gone", async () => {
    const term = await startGyre({ turns: [mockTurn.text("unused")] }, folders());
    await send(term, "!sleep 38.5; echo DONE-$((1+1))");
    await term.waitFor("Esc stops it");
    await waitForProcess("sleep 38.5", true);
    term.press("Escape");
    const screen = await term.waitFor("(ended by SIGKILL)");
    expect(screen).not.toContain("DONE-2");
    await waitForProcess("sleep 38.5", false);
  });

  it("/resume picks a session of this folder, shows its conversation and goes on with it; Esc cancels", async () => {
    const where = folders();
    const script = { turns: [mockTurn.text("Answer one."), mockTurn.text("Answer two.")] };
    let term = await startGyre(script, where);
    await send(term, "the first conversation");
    await term.waitFor("Answer one.");
    term.press("C-d");
    const ended = await term.waitFor("[exited 0]");
    // Wrapped lines joined back: the hint names the executable's path, which may wrap.
    const id = /Go on with: .*? --resume ([0-9a-f-]{36})/.exec(ended.replace(/\n/g, ""))?.[1] ?? "";
    await stop();

    // --resume shows the conversation it goes on with.
    term = await startGyre(script, where, ["--resume", id]);
    const shown = await term.waitFor("Answer one.");
    expect(shown).toContain("❯ the first conversation");
    expect(shown).toContain(`Resumed session ${id}`);
    await stop();

    term = await startGyre(script, where);
    await send(term, "/resume");
    await term.waitFor("Resume a session");
    await term.waitFor(/❯ .*the first conversation/, "the earlier session in the picker");
    term.press("Escape");
    await term.waitUntil((screen) => !screen.includes("Resume a session"), "Esc to close the picker");
    await send(term, "/resume");
    await term.waitFor("Resume a session");
    term.press("Enter");
    const resumed = await term.waitFor("Resumed session");
    expect(resumed).toContain("❯ the first conversation");
    expect(resumed).toContain("Answer one.");
    // The model answers the second turn only when the conversation holds the first.
    await send(term, "and now?");
    await term.waitFor("Answer two.");
    expect(lastRequest()).toContain("the first conversation");
  });

  it("answers /permissions, /hooks, /mcp and /export, and /init asks the agent for AGENTS.md", async () => {
    const where = folders({
      ".claude/settings.json": JSON.stringify({
        permissions: { allow: ["Bash(ls:*)"], deny: ["Read(./.env)"] },
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo checked" }] }] },
      }),
    });
    const term = await startGyre(
      { mode: "sequential", turns: [mockTurn.text("First answer."), mockTurn.text("I will write AGENTS.md.")] },
      where,
      ["--trust-project", "--allowed-tools", "Glob"],
    );
    await send(term, "/permissions");
    const permissions = await term.waitFor("Deny:");
    const settingsFile = join(where.cwd, ".claude", "settings.json");
    expect(permissions).toContain(`Bash(ls:*)   ← ${settingsFile}`);
    expect(permissions).toContain("Glob   ← --allowed-tools");
    expect(permissions).toContain(`Read(./.env)   ← ${settingsFile}`);
    await send(term, "/hooks");
    await term.waitFor(`PreToolUse [Bash] echo checked   ← ${settingsFile}`);
    await send(term, "/mcp");
    await term.waitFor("MCP servers connect with your first prompt");

    await send(term, "hello there");
    await term.waitFor("First answer.");
    await send(term, "/mcp");
    await term.waitFor("No MCP servers are configured");
    await send(term, "/export");
    const exported = await term.waitFor(/Exported the conversation to \S+\.md/);
    const file = readdirSync(where.cwd).find((name) => name.startsWith("gyre-") && name.endsWith(".md"));
    expect(exported).toContain(file);
    const markdown = readFileSync(join(where.cwd, file ?? ""), "utf8");
    expect(markdown).toMatch(/## You\n\nhello there\n\n## Gyre\n\nFirst answer\./);
    await send(term, "/export notes/chat.md");
    await term.waitFor("chat.md");

    await send(term, "/init");
    await term.waitFor("I will write AGENTS.md.");
    expect(lastRequest()).toContain("write an AGENTS.md file at its root");
  });
});

describe("pasting into the interactive agent", () => {
  it("shows a long paste as a placeholder, sends all of it, and never sends on a pasted line end", async () => {
    const term = await startGyre({ turns: [mockTurn.text("Read your log.")] }, folders());
    const log = Array.from({ length: 40 }, (_, i) => `log line ${i + 1}`).join("\n");
    term.type("explain ");
    await term.waitFor("❯ explain");
    term.paste(`${log}\n`);
    await term.waitFor("❯ explain [Pasted text #1 +40 lines]", "the placeholder in the prompt box");
    term.paste("short\rpaste");
    await term.waitFor(/\[Pasted text #1 \+40 lines\]short\s*│\n│\s+paste/, "a short paste as it is, over two lines");
    expect(server?.requests).toHaveLength(0);
    term.press("Enter");
    await term.waitFor("Read your log.");
    const request = lastRequest();
    expect(request).toContain("explain log line 1\\nlog line 2\\n");
    expect(request).toContain("log line 40\\nshort\\npaste");
  });
});
