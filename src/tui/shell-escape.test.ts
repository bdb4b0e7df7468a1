import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runShellEscape, shellContext, shellSummary } from "./shell-escape.js";

describe("!command", () => {
  it("runs in cwd and keeps stdout, stderr and the exit code for the screen and the model", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-bang-"));
    const run = await runShellEscape("pwd; echo oops >&2; exit 4", cwd, new AbortController().signal);
    expect(run).toEqual({
      command: "pwd; echo oops >&2; exit 4",
      stdout: `${cwd}\n`,
      stderr: "oops\n",
      exitCode: 4,
      signal: undefined,
    });
    expect(shellSummary(run)).toBe(`! pwd; echo oops >&2; exit 4\n${cwd}\noops\n(exit 4)`);
    expect(shellContext(run)).toBe(
      `<bash-input>pwd; echo oops >&2; exit 4</bash-input>\n<bash-stdout>${cwd}\n</bash-stdout><bash-stderr>oops\n</bash-stderr>\n<bash-exit>4</bash-exit>`,
    );
  });

  it("ends the whole process group when stopped", async () => {
    const abort = new AbortController();
    const marker = `sleep 41.${process.pid}`;
    const running = runShellEscape(`${marker} & ${marker}; wait`, tmpdir(), abort.signal);
    const deadline = Date.now() + 10_000;
    while (!alive(marker)) {
      if (Date.now() > deadline) throw new Error("the command never started");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    abort.abort();
    const run = await running;
    expect(run.signal).toBe("SIGKILL");
    while (alive(marker)) {
      if (Date.now() > deadline) throw new Error("a process of the command outlived the stop");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});

function alive(pattern: string): boolean {
  try {
    execFileSync("pgrep", ["-f", pattern], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
