import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CommandExit, CommandProcess } from "./command-process.js";
import { MAX_INLINE_COMMAND_BYTES, startLongCommand } from "./long-command.js";

/** A stand-in process whose exit the test decides; records the command it was started with. */
function fakeStart() {
  const started: string[] = [];
  let exit: (value: CommandExit) => void = () => {};
  const start = (command: string): Promise<CommandProcess> => {
    started.push(command);
    const exited = new Promise<CommandExit>((resolve) => {
      exit = resolve;
    });
    return Promise.resolve({
      pid: 1,
      onOutput: () => {},
      exited,
      kill: async () => ({ stopped: 0, survivors: [], scope: "all" }),
    });
  };
  return { started, start, exit: (value: CommandExit) => exit(value) };
}

describe("startLongCommand", () => {
  it("hands a short command to the shell as it is", async () => {
    const fake = fakeStart();
    await startLongCommand("echo hi", undefined, fake.start);
    expect(fake.started).toEqual(["echo hi"]);
  });

  it("sources a longer command from a private file, removed once the shell exits", async () => {
    const fake = fakeStart();
    const command = `echo '${"x".repeat(MAX_INLINE_COMMAND_BYTES)}'`;
    const running = await startLongCommand(command, undefined, fake.start);
    const file = /^\. '(.+)'$/.exec(fake.started[0] ?? "")?.[1] ?? "";
    expect(readFileSync(file, "utf8")).toBe(command);
    fake.exit({ exitCode: 0, signal: null });
    await running.exited;
    expect(existsSync(file)).toBe(false);
  });
});
