import { describe, expect, it } from "vitest";
import { defaultShell, MAX_HOOK_STDERR_BYTES, runHookCommand } from "./run-hook-command.js";

describe("defaultShell", () => {
  it("uses $SHELL when it is a POSIX shell, else /bin/sh", () => {
    expect(defaultShell({ SHELL: "/usr/bin/zsh" })).toBe("/usr/bin/zsh");
    expect(defaultShell({ SHELL: "/usr/bin/fish" })).toBe("/bin/sh");
    expect(defaultShell({})).toBe("/bin/sh");
  });
});

describe("runHookCommand", () => {
  const base = { cwd: process.cwd(), env: process.env, timeoutMs: 20_000, shell: "/bin/sh" };

  it("captures stdout, stderr and the exit code, with stdin delivered", async () => {
    const exit = await runHookCommand({ ...base, command: "cat; echo err >&2; exit 3", stdin: '{"a":1}' });
    expect(exit).toEqual({
      exitCode: 3,
      stdout: '{"a":1}',
      stderr: "err\n",
      timedOut: false,
      aborted: false,
    });
  });

  it("does not fail when the hook ignores its stdin", async () => {
    const exit = await runHookCommand({ ...base, command: "exit 0", stdin: "x".repeat(1024 * 1024) });
    expect(exit.exitCode).toBe(0);
    expect(exit.spawnError).toBeUndefined();
  });

  it("reports a shell that cannot be started", async () => {
    const exit = await runHookCommand({ ...base, shell: "/nonexistent/shell", command: "true", stdin: "" });
    expect(exit.spawnError).toMatch(/ENOENT/);
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const exit = await runHookCommand({ ...base, command: "true", stdin: "", signal: controller.signal });
    expect(exit).toMatchObject({ aborted: true, exitCode: null });
  });

  it("stops a hook whose stdout goes past the limit and keeps none of it", async () => {
    const exit = await runHookCommand({
      ...base,
      maxStdoutBytes: 1000,
      command: "head -c 5000 /dev/zero | tr '\\0' x; echo done >&2; exec sleep 100",
      stdin: "",
    });
    expect(exit).toMatchObject({ stdoutOverflow: 1000, stdout: "", timedOut: false, signal: "SIGKILL" });
  });

  it("keeps stdout of exactly the limit", async () => {
    const exit = await runHookCommand({
      ...base,
      maxStdoutBytes: 1000,
      command: "head -c 1000 /dev/zero",
      stdin: "",
    });
    expect(exit.stdoutOverflow).toBeUndefined();
    expect(exit.stdout).toHaveLength(1000);
    expect(exit.exitCode).toBe(0);
  });

  it("drains stderr past its limit without failing the hook", async () => {
    const exit = await runHookCommand({
      ...base,
      command: `head -c ${MAX_HOOK_STDERR_BYTES + 100_000} /dev/zero | tr '\\0' e >&2; echo '{}'`,
      stdin: "",
    });
    expect(exit).toMatchObject({ exitCode: 0, stdout: "{}\n", stderrTruncated: true });
    expect(exit.stderr).toHaveLength(MAX_HOOK_STDERR_BYTES);
  });

  it("decodes UTF-8 split across reads", async () => {
    // 400 kB of 3-byte characters, shifted by one byte: reads end mid-character.
    const exit = await runHookCommand({ ...base, command: "printf x; yes '€' | head -n 100000", stdin: "" });
    expect(exit.stdout).toBe(`x${"€\n".repeat(100_000)}`);
  });

  it("reports the signal that killed the hook", async () => {
    const exit = await runHookCommand({ ...base, command: "kill -TERM $$", stdin: "" });
    expect(exit).toMatchObject({ exitCode: null, signal: "SIGTERM", timedOut: false });
  });
});
