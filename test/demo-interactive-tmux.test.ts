// `npm run demo -- --interactive` in a real terminal (tmux): the demo starts the mock LLM with
// its scripted coding session and the interactive agent against it; the session plays out on
// screen to the script's final answer, and quitting leaves the scratch project fixed, prints a
// command that goes on with the session from a checkout, and leaves no session in the user's
// data folder (the demo has a throwaway one).
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listSessions } from "../src/index.js";
import { cliEnv } from "./helpers.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const CLI = resolve("dist/bin/gyre.js");
const SOCKET = `gyre-demo-test-${process.pid}`;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  execFileSync("tmux", ["-V"]);
});
afterAll(() => TmuxTerminal.killServer(SOCKET));

describe("the interactive demo", () => {
  it("plays the scripted coding session in the interactive agent to its final answer", async () => {
    const term = TmuxTerminal.start({
      socket: SOCKET,
      name: "demo",
      cwd: resolve("."),
      command: [process.execPath, "scripts/demo.mjs", "--interactive"],
      env: { GYRE_HOME: cliEnv().GYRE_HOME ?? "", CI: "true" },
      height: 50,
      // Wide enough that the printed command (temp paths) stays on one line.
      width: 400,
    });
    try {
      // The first prompt is given on the command line: no typing needed to start.
      const first = await term.waitFor("I'll start by running the tests.", "the first turn");
      expect(first).toContain("❯ The tests fail. Fix the bug.");
      const done = await term.waitFor("the tests pass now.", "the script's final answer");
      expect(done).toMatch(/✗ Bash node test\.js → exit 1/);
      expect(done).toMatch(/✓ Edit src\/math\.js/);
      expect(done).toMatch(/✓ Bash node test\.js → exit 0/);
      await term.waitFor("Shift+Tab: mode", "the prompt to be ready again");
      term.press("C-d");
      const after = await term.waitFor("[exited 0]");
      expect(after).toContain("src/math.js now:");
      expect(after).toContain("return a + b;");
      // A checkout has no gyre on the PATH: the hint runs the built executable, in the demo's
      // scratch project and data folder.
      const hint = /cd (\S+) && GYRE_HOME=(\S+) node (\S+) --resume ([0-9a-f-]{36})/.exec(after);
      expect(realpathSync(hint?.[3] ?? "")).toBe(realpathSync(CLI));
      const [, project = "", dataFolder = "", , id = ""] = hint ?? [];
      const listed = execFileSync(process.execPath, [CLI, "sessions", "list"], {
        cwd: project,
        env: { ...process.env, GYRE_HOME: dataFolder },
        encoding: "utf8",
      });
      expect(listed).toContain(id);
      // The user's data folder (here the test's) got nothing of the demo.
      expect(await listSessions({ cwd: project })).toEqual([]);
    } finally {
      term.kill();
    }
  });
});
