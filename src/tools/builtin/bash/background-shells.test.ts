import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../tool.js";
import { backgroundShellsOf } from "./background-shells.js";
import { bashOutputTool } from "./bash-output-tool.js";
import { bashTool } from "./bash-tool.js";
import { killShellTool } from "./kill-shell-tool.js";
import { isProcessAlive } from "./process-tree.js";
import { createTestToolContext, type TestToolContext, waitFor } from "./test-support.js";

const tempDir = () => mkdtempSync(join(tmpdir(), "gyre-bg-test-"));
const bash = bashTool();
const bashOutput = bashOutputTool();
const killShell = killShellTool();

async function start(context: TestToolContext, command: string): Promise<string> {
  const result = (await bash.execute({ command, run_in_background: true }, context)) as ToolResult;
  const match = (result.content as string).match(/^Command running in background with ID: (bash_\d+)$/);
  expect(match).not.toBeNull();
  return match![1]!;
}

const read = async (context: TestToolContext, bash_id: string, filter?: string) =>
  (await bashOutput.execute({ bash_id, filter }, context)) as ToolResult;

/** Read until `done` holds for everything read so far; returns all of it. */
async function readUntil(context: TestToolContext, id: string, done: (seen: string) => boolean) {
  let seen = "";
  await waitFor(
    async () => {
      seen += (await read(context, id)).content as string;
      return done(seen);
    },
    { what: `output of ${id}` },
  );
  return seen;
}

const pidsIn = (file: string) => readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
const allDead = (pids: number[]) => pids.length > 0 && pids.every((pid) => !isProcessAlive(pid));

describe("background shells", () => {
  it("starts at once, reads output incrementally and reports completion with the exit code", async () => {
    const context = createTestToolContext();
    const gate = join(tempDir(), "gate");
    const id = await start(context, `echo first; while [ ! -e ${gate} ]; do sleep 0.02; done; echo second; exit 4`);
    expect(id).toBe("bash_1");

    const early = await readUntil(context, id, (seen) => seen.includes("first"));
    expect(early).toContain("<status>running</status>");
    expect(early).not.toContain("second");

    writeFileSync(gate, "");
    const late = await readUntil(context, id, (seen) => seen.includes("<status>failed</status>"));
    expect(late).toContain("<output>\nsecond\n</output>");
    expect(late).toContain("<status>failed</status>\n\n<exit_code>4</exit_code>");
    expect(late).not.toContain("first");

    const after = await read(context, id);
    expect(after.content).toMatch(
      /^<status>failed<\/status>\n\n<exit_code>4<\/exit_code>\n\n<timestamp>[^<]+<\/timestamp>$/,
    );
    expect(after.isError).toBeFalsy();
  });

  it("numbers shells per session", async () => {
    const context = createTestToolContext();
    expect(await start(context, "true")).toBe("bash_1");
    expect(await start(context, "true")).toBe("bash_2");
    expect(await start(createTestToolContext(), "true")).toBe("bash_1");
  });

  it("filters lines with a regular expression and drops the rest", async () => {
    const context = createTestToolContext();
    const id = await start(context, "printf 'a1\\nb2\\na3\\n'");
    await backgroundShellsOf(context.session).get(id)?.ended;
    const filtered = await read(context, id, "^a");
    expect(filtered.content).toContain("<output>\na1\na3\n</output>");
    expect(filtered.content).toContain("<status>completed</status>\n\n<exit_code>0</exit_code>");
    expect((await read(context, id)).content).not.toContain("<output>");
  });

  it("rejects an invalid filter and an unknown id", async () => {
    const context = createTestToolContext();
    const id = await start(context, "true");
    expect(await read(context, id, "(")).toMatchObject({ isError: true });
    expect(await read(context, "bash_99")).toEqual({
      content: "No shell found with ID: bash_99",
      isError: true,
    });
    expect(await killShell.execute({ shell_id: "bash_99" }, context)).toEqual({
      content: "No shell found with ID: bash_99",
      isError: true,
    });
  });

  it("KillShell stops the shell and every process it started", async () => {
    const context = createTestToolContext();
    const file = join(tempDir(), "pids");
    const command = `echo $$ > ${file}; sleep 1000 & echo $! >> ${file}; echo started; wait`;
    const id = await start(context, command);
    await readUntil(context, id, (seen) => seen.includes("started"));

    const killed = (await killShell.execute({ shell_id: id }, context)) as ToolResult;
    expect(killed).toEqual({
      content: `Successfully killed shell: ${id} (${command})`,
      data: { message: `Successfully killed shell: ${id} (${command})`, shell_id: id },
    });
    expect(allDead(pidsIn(file))).toBe(true);
    expect((await read(context, id)).content).toContain("<status>killed</status>");
    expect(await killShell.execute({ shell_id: id }, context)).toEqual({
      content: `Shell ${id} is not running, so cannot be killed (status: killed)`,
      isError: true,
    });
  });

  it("kills background shells when the session is disposed", async () => {
    const context = createTestToolContext();
    const file = join(tempDir(), "pids");
    const id = await start(context, `echo $$ > ${file}; sleep 1000 & echo $! >> ${file}; echo started; wait`);
    await readUntil(context, id, (seen) => seen.includes("started"));
    const pids = pidsIn(file);
    expect(pids.every((pid) => isProcessAlive(pid))).toBe(true);
    await context.session.dispose();
    expect(allDead(pids)).toBe(true);
  });

  it("leaves what a finished shell started running until KillShell, which then stops it", async () => {
    const context = createTestToolContext();
    const file = join(tempDir(), "pids");
    const id = await start(context, `setsid sleep 1000 > /dev/null 2>&1 & echo $! > ${file}`);
    await backgroundShellsOf(context.session).get(id)?.ended;
    const [pid] = await waitFor(() => pidsIn(file).length === 1 && pidsIn(file), { what: "the pid" });
    // Until setsid has exec'd sleep, /proc shows a process between programs, which KillShell's scan
    // may not read yet (a loaded machine widens that window): wait for the program the test means.
    await waitFor(() => commandLineOf(pid!).startsWith("sleep"), { what: "sleep to have started" });
    expect((await read(context, id)).content).toContain("<status>completed</status>");
    expect(isProcessAlive(pid!)).toBe(true);

    const killed = (await killShell.execute({ shell_id: id }, context)) as ToolResult;
    expect(killed.content).toBe(`Shell ${id} had already ended (completed); 1 process it left running was stopped.`);
    expect(isProcessAlive(pid!)).toBe(false);
    expect(await killShell.execute({ shell_id: id }, context)).toMatchObject({ isError: true });
  });

  it("keeps a shell running while a process it started still writes its output", async () => {
    const context = createTestToolContext();
    const gate = join(tempDir(), "gate");
    const id = await start(context, `(while [ ! -e ${gate} ]; do sleep 0.02; done; echo late) & echo early`);
    await readUntil(context, id, (seen) => seen.includes("early"));
    expect((await read(context, id)).content).toContain("<status>running</status>");
    writeFileSync(gate, "");
    const rest = await readUntil(context, id, (seen) => seen.includes("<status>completed</status>"));
    expect(rest).toContain("late");
  });

  it("stops, when the session ends, what finished shells left running", async () => {
    const context = createTestToolContext();
    const file = join(tempDir(), "pids");
    const id = await start(context, `nohup sleep 1000 > /dev/null 2>&1 & echo $! > ${file}`);
    await backgroundShellsOf(context.session).get(id)?.ended;
    const [pid] = await waitFor(() => pidsIn(file).length === 1 && pidsIn(file), { what: "the pid" });
    expect(isProcessAlive(pid!)).toBe(true);
    await context.session.dispose();
    expect(isProcessAlive(pid!)).toBe(false);
  });
});

/** The process's command line as /proc shows it, arguments space-separated ("" once it is gone). */
function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}
