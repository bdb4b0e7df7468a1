// `-r`/`--resume` with no session id, in a real terminal (tmux) against the scripted mock LLM:
// print mode lists the folder's recent sessions to pick from (numbered, on stderr), the
// interactive agent opens its /resume picker at start; either way the run goes on with the
// session chosen.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { GYRE_CLI as CLI, gyreTerminals } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("resume-picker", async () => {
  await server?.close();
  server = undefined;
});

/**
 * A folder with two stored sessions, made in print mode without a terminal: "the older
 * conversation", then "the newer conversation". The mock answers a session's first prompt
 * with "Answer one." and its second with "Answer two.", so "Answer two." only comes when the
 * resumed conversation is sent along.
 */
async function folderWithTwoSessions(): Promise<string> {
  server = await startMockLLM({ script: { turns: [mockTurn.text("Answer one."), mockTurn.text("Answer two.")] } });
  const cwd = mkdtempSync(join(tmpdir(), "gyre-resume-picker-"));
  for (const prompt of ["the older conversation", "the newer conversation"]) {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, "run", prompt], {
      cwd,
      env: cliEnv(server.env()),
    });
    expect(stdout).toBe("Answer one.\n");
  }
  return cwd;
}

function startInTerminal(cwd: string, args: string[]): TmuxTerminal {
  return terminals.start({ cwd, args, env: { GYRE_HOME: cliEnv().GYRE_HOME ?? "", ...server!.env() } });
}

/** The last model request, as JSON text. */
function lastRequest(): string {
  return JSON.stringify(server?.requests.at(-1)?.body ?? null);
}

describe("-r with no session id, in a real terminal", () => {
  it("gyre -p -r lists this folder's sessions, newest first, and goes on with the one picked", async () => {
    const cwd = await folderWithTwoSessions();
    const term = startInTerminal(cwd, ["-p", "-r"]);
    const list = await term.waitFor("Resume which?", "the numbered list of sessions");
    expect(list).toMatch(/ 1\. \d{4}-\d\d-\d\d \d\d:\d\d +\d+ msgs {2}the newer conversation/);
    expect(list).toMatch(/ 2\. \d{4}-\d\d-\d\d \d\d:\d\d +\d+ msgs {2}the older conversation/);
    term.type("2");
    term.press("Enter");
    // No prompt was given: it is asked for on the terminal.
    await term.waitFor("Prompt for the resumed session:");
    term.type("and now?");
    term.press("Enter");
    const done = await term.waitFor("[exited 0]");
    expect(done).toContain("Answer two.");
    expect(lastRequest()).toContain("the older conversation");
    expect(lastRequest()).not.toContain("the newer conversation");
  });

  it("gyre run PROMPT -r takes the prompt given, Enter picking the newest session", async () => {
    const cwd = await folderWithTwoSessions();
    const term = startInTerminal(cwd, ["run", "and now?", "-r"]);
    await term.waitFor("Resume which?", "the numbered list of sessions");
    term.press("Enter");
    const done = await term.waitFor("[exited 0]");
    expect(done).toContain("Answer two.");
    expect(lastRequest()).toContain("the newer conversation");
  });

  it("says there is nothing to resume in a folder without sessions", async () => {
    server = await startMockLLM({ script: { turns: [] } });
    const term = startInTerminal(mkdtempSync(join(tmpdir(), "gyre-resume-empty-")), ["-p", "hi", "-r"]);
    const done = await term.waitFor("[exited 1]");
    expect(done).toMatch(/gyre: session_not_found: no session in \S+ to resume/);
    expect(server.requests).toHaveLength(0);
  });

  it("gyre --resume opens the /resume picker at start and goes on with the session chosen", async () => {
    const cwd = await folderWithTwoSessions();
    const term = startInTerminal(cwd, ["--resume"]);
    await term.waitFor("Resume a session", "the picker");
    await term.waitFor(/❯ .*the newer conversation/, "the newest session chosen first");
    term.press("Down");
    await term.waitFor(/❯ .*the older conversation/, "the older session chosen");
    term.press("Enter");
    const resumed = await term.waitFor("Resumed session");
    expect(resumed).toContain("❯ the older conversation");
    term.type("and now?");
    await term.waitFor("❯ and now?", "the prompt box to show the prompt");
    term.press("Enter");
    await term.waitFor("Answer two.");
    expect(lastRequest()).toContain("the older conversation");
    expect(lastRequest()).not.toContain("the newer conversation");
  });

  it("gyre PROMPT --resume refuses a first prompt the picker would leave nowhere to go", async () => {
    server = await startMockLLM({ script: { turns: [] } });
    const term = startInTerminal(mkdtempSync(join(tmpdir(), "gyre-resume-prompt-")), ["hello", "--resume"]);
    const done = await term.waitFor("[exited 1]");
    expect(done).toContain("gyre: config_error: --resume with no session id opens a picker");
    expect(server.requests).toHaveLength(0);
  });
});
