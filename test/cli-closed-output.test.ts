import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv } from "./helpers.js";

// `gyre sessions list | head -1`: a reader that goes away ends the command quietly, for every
// command, never with an EPIPE stack trace.

const CLI = resolve("dist/bin/gyre.js");
const home = mkdtempSync(join(tmpdir(), "gyre-epipe-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs gyre with its stdout closed before it writes: what it says on stderr, and how it exits. */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: cliEnv({ GYRE_HOME: home }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolveExit) => child.on("exit", (code) => resolveExit({ code, stderr })));
}

describe("gyre with a reader that went away", () => {
  it.each([[["--help"]], [["sessions", "list"]], [["run", "--help"]]])("%j ends quietly", async (args) => {
    const { code, stderr } = await withClosedStdout(args);
    expect(stderr).not.toMatch(/EPIPE|at .*\(|Unhandled/);
    expect(code).toBe(0);
  });
});
