import { statSync } from "node:fs";
import { type CommandProcess, failedProcess, type StartCommandOptions } from "./command-process.js";
import { ptyProcess } from "./pty-process.js";
import { spawnProcess } from "./spawn-process.js";

/** Start a shell command over pipes, or under a pseudo-terminal when `pty` is set. */
export function startCommand(options: StartCommandOptions & { pty?: boolean }): Promise<CommandProcess> {
  // Checked here because a missing cwd otherwise surfaces as a confusing "spawn /bin/bash ENOENT".
  if (!isDirectory(options.cwd)) {
    return Promise.resolve(failedProcess(`the working directory ${options.cwd} does not exist`));
  }
  return options.pty ? ptyProcess(options) : Promise.resolve(spawnProcess(options));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
