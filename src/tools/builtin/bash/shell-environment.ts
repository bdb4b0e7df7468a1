import { existsSync } from "node:fs";
import { basename } from "node:path";
import { providerKeyEnvNames } from "../../../model/index.js";
import type { BashToolsOptions } from "./bash-options.js";

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
 * Variables commands do not inherit: every built-in provider's API key and `secretEnv`,
 * except those in `passEnv`. Names are compared case-insensitively on Windows, where the
 * environment is.
 */
export function withheldVariables(options: Pick<BashToolsOptions, "passEnv" | "secretEnv"> = {}): Set<string> {
  const passed = new Set((options.passEnv ?? []).map(normalName));
  const names = [...providerKeyEnvNames(), ...(options.secretEnv ?? [])].map(normalName);
  return new Set(names.filter((name) => !passed.has(name)));
}

/**
 * The `passEnv` variables as `env` holds them, for a Bash tool whose process no longer has them
 * (the `gyre` CLI takes the provider keys out of its own environment and hands them to its runs
 * through their `env` option): passed to commands as `BashToolsOptions.env`.
 */
export function passedVariables(
  passEnv: readonly string[] | undefined,
  env: Record<string, string | undefined> | undefined,
): Record<string, string> | undefined {
  if (!passEnv?.length || !env) return undefined;
  const passed = Object.fromEntries(passEnv.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
  return Object.keys(passed).length > 0 ? passed : undefined;
}

/**
 * Environment for a command: the parent's without the `withheld` variables, made
 * non-interactive so nothing waits for a human — no pager, no credential or editor prompt,
 * CI-mode tools (no watch mode, no spinners). `extra` is applied last and may override any of it.
 */
export function commandEnvironment(
  extra: Record<string, string> = {},
  base: NodeJS.ProcessEnv = process.env,
  withheld: ReadonlySet<string> = withheldVariables(),
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !withheld.has(normalName(key))) env[key] = value;
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

function normalName(name: string): string {
  return process.platform === "win32" ? name.toUpperCase() : name;
}
