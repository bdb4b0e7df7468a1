import { describe, expect, it } from "vitest";
import { defaultShell, runCommand } from "./run-command.js";

describe("defaultShell", () => {
  it("uses $SHELL when it is a POSIX shell, else /bin/sh", () => {
    expect(defaultShell({ SHELL: "/usr/bin/zsh" })).toBe("/usr/bin/zsh");
    expect(defaultShell({ SHELL: "/usr/bin/fish" })).toBe("/bin/sh");
    expect(defaultShell({})).toBe("/bin/sh");
  });
});

describe("runCommand", () => {
  const base = { cwd: process.cwd(), env: process.env, timeoutMs: 20_000, shell: "/bin/sh" };

  it("captures stdout, stderr and the exit code, with stdin delivered", async () => {
    const exit = await runCommand({ ...base, command: "cat; echo err >&2; exit 3", stdin: '{"a":1}' });
    expect(exit).toEqual({
      exitCode: 3,
      stdout: '{"a":1}',
      stderr: "err\n",
      timedOut: false,
      aborted: false,
    });
  });

  it("does not fail when the hook ignores its stdin", async () => {
    const exit = await runCommand({ ...base, command: "exit 0", stdin: "x".repeat(1024 * 1024) });
    expect(exit.exitCode).toBe(0);
    expect(exit.spawnError).toBeUndefined();
  });

  it("reports a shell that cannot be started", async () => {
    const exit = await runCommand({ ...base, shell: "/nonexistent/shell", command: "true", stdin: "" });
    expect(exit.spawnError).toMatch(/ENOENT/);
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const exit = await runCommand({ ...base, command: "true", stdin: "", signal: controller.signal });
    expect(exit).toMatchObject({ aborted: true, exitCode: null });
  });
});
