import { existsSync } from "node:fs";
import { basename } from "node:path";

/** Shells whose `-c` understands the POSIX-style commands models write. */
const POSIX_SHELLS = new Set(["bash", "zsh", "sh", "dash", "ksh"]);

/**
 * The shell to run commands with: `preferred` when given, else the user's `$SHELL` when it
 * is a POSIX-style shell (fish or nu would misread the commands models write), else bash.
 */
export function resolveShell(preferred?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (preferred) return preferred;
  const user = env.SHELL;
  if (user && POSIX_SHELLS.has(basename(user)) && existsSync(user)) return user;
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

/**
 * Environment for a command: the parent's, made non-interactive so nothing waits for a
 * human — no pager, no credential or editor prompt, CI-mode tools (no watch mode, no
 * spinners). `extra` is applied last and may override any of it.
 */
export function commandEnvironment(
  extra: Record<string, string> = {},
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, {
    PAGER: "cat",
    GIT_PAGER: "cat",
    MANPAGER: "cat",
    SYSTEMD_PAGER: "",
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    GCM_INTERACTIVE: "never",
    DEBIAN_FRONTEND: "noninteractive",
    CI: base.CI ?? "true",
  });
  return Object.assign(env, extra);
}
