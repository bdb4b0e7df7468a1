import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../tool.js";
import { backgroundShellsOf } from "./background-shells.js";
import { bashOutputTool } from "./bash-output-tool.js";
import { bashTool } from "./bash-tool.js";
import { isProcessAlive } from "./process-tree.js";
import { createTestToolContext, waitFor } from "./test-support.js";

const TTY_CHECK = "[ -t 1 ] && echo tty || echo notty";
const withPty = bashTool({ pty: true });
const run = async (command: string, context = createTestToolContext(), timeout?: number) =>
  (await withPty.execute({ command, timeout }, context)) as ToolResult;

describe("Bash under a pseudo-terminal", () => {
  it("gives commands a terminal only when pty is on", async () => {
    expect((await run(TTY_CHECK)).content).toBe("tty");
    const plain = (await bashTool().execute({ command: TTY_CHECK }, createTestToolContext())) as ToolResult;
    expect(plain.content).toBe("notty");
  });

  it("returns plain text: no colour codes, LF line ends, stderr included", async () => {
    const result = await run("printf '\\033[31mred\\033[0m\\n'; echo err >&2");
    expect(result.content).toBe("red\nerr");
  });

  it("reports a non-zero exit", async () => {
    expect(await run("echo bad; exit 7")).toMatchObject({ content: "bad\nExit code 7", isError: true });
  });

  it("ends input at once, so a command reading the terminal does not wait", async () => {
    expect((await run("cat; echo after-cat")).content).toBe("after-cat");
  });

  it("does not page git log although stdout is a terminal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-pty-git-"));
    const result = await run(
      "git init -q . && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m pty-commit && git log",
      createTestToolContext({ cwd: dir }),
    );
    expect(result.content).toContain("pty-commit");
  });

  it("kills the whole process tree on timeout", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gyre-pty-")), "pids");
    const result = await run(
      `echo $$ > ${file}; sleep 1000 & echo $! >> ${file}; sleep 1000 & echo $! >> ${file}; wait`,
      createTestToolContext(),
      1_500,
    );
    expect(result.data).toMatchObject({ timedOut: true });
    const pids = readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
    expect(pids).toHaveLength(3);
    await waitFor(() => pids.every((pid) => !isProcessAlive(pid)), { what: "the tree to die" });
  });

  it("stops what a command left running in a new session, and withholds provider keys", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gyre-pty-")), "pids");
    process.env.ANTHROPIC_API_KEY = "sk-ant-pty-secret";
    try {
      // Waits until the child is in its new session: else the terminal's hangup may end it first.
      const result = await run(
        `setsid sh -c 'echo $$ > ${file}; exec sleep 1000' > /dev/null 2>&1 & ` +
          `until [ -s ${file} ]; do sleep 0.01; done; echo "key=$ANTHROPIC_API_KEY"`,
      );
      expect(result.content).toMatch(/^key=\nNote: 1 process this command left running was stopped/);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
    const [pid] = readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
    expect(isProcessAlive(pid!)).toBe(false);
  });

  it("runs background shells under a terminal too", async () => {
    const context = createTestToolContext();
    await withPty.execute({ command: TTY_CHECK, run_in_background: true }, context);
    await backgroundShellsOf(context.session).get("bash_1")?.ended;
    const result = (await bashOutputTool().execute({ bash_id: "bash_1" }, context)) as ToolResult;
    expect(result.content).toContain("<output>\ntty\n</output>");
  });
});
