import { statSync } from "node:fs";
import { type CommandProcess, failedProcess, type StartCommandOptions } from "./command-process.js";
import { startLongCommand } from "./long-command.js";
import { ptyProcess } from "./pty-process.js";
import { spawnProcess } from "./spawn-process.js";
import { newMarker, withMarker } from "./tool-call-marker.js";

/**
 * Start a shell command over pipes, or under a pseudo-terminal when `pty` is set, with a
 * fresh marker in its environment by which all its processes are found again.
 */
export function startCommand(options: StartCommandOptions & { pty?: boolean }): Promise<CommandProcess> {
  // Checked here because a missing cwd otherwise surfaces as a confusing "spawn /bin/bash ENOENT".
  if (!isDirectory(options.cwd)) {
    return Promise.resolve(failedProcess(`the working directory ${options.cwd} does not exist`));
  }
  const marker = newMarker();
  return startLongCommand(options.command, options.sandbox?.temporaryDirectory, (command) => {
    const spawnOptions = { ...options, command, marker, env: withMarker(options.env, marker) };
    return options.pty ? ptyProcess(spawnOptions) : Promise.resolve(spawnProcess(spawnOptions));
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
