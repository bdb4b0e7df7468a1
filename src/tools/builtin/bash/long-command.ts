import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../../../errors/index.js";
import { type CommandProcess, failedProcess } from "./command-process.js";

/**
 * Longest command handed to the shell as its `-c` argument. Linux refuses any one exec
 * argument over 128 KiB (MAX_ARG_STRLEN) with E2BIG; this stays well under it.
 */
export const MAX_INLINE_COMMAND_BYTES = 64 * 1024;

/**
 * Starts `command` through `start`, which passes what it is given to `<shell> -c`. A longer
 * command is written to a private temporary file that the shell sources (`. <file>`), so a
 * script of any length runs as it would inline; the file is removed before `exited` settles.
 * `directory` holds the file (default: the OS temp): a sandboxed shell must be able to read it.
 */
export async function startLongCommand(
  command: string,
  directory: string | undefined,
  start: (command: string) => Promise<CommandProcess>,
): Promise<CommandProcess> {
  const bytes = Buffer.byteLength(command);
  if (bytes <= MAX_INLINE_COMMAND_BYTES) return start(command);
  let dir: string | undefined;
  let file: string;
  try {
    dir = await mkdtemp(join(directory ?? tmpdir(), "gyre-command-"));
    file = join(dir, "command.sh");
    await writeFile(file, command, { mode: 0o600 });
  } catch (error) {
    if (dir !== undefined) await removeQuietly(dir);
    return failedProcess(
      `the command is ${bytes} bytes, too long to pass to the shell as an argument, and it could not be ` +
        `written to a temporary file: ${errorMessage(error)}`,
    );
  }
  const folder = dir;
  let started: CommandProcess;
  try {
    started = await start(`. ${singleQuoted(file)}`);
  } catch (error) {
    await removeQuietly(folder);
    throw error;
  }
  // Settles once the file is gone, so a finished command leaves nothing behind.
  const exited = started.exited.finally(() => removeQuietly(folder));
  return {
    pid: started.pid,
    onOutput: (listener) => started.onOutput(listener),
    exited,
    kill: () => started.kill(),
  };
}

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

async function removeQuietly(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true }).catch(() => {});
}
