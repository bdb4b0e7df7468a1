import type { CommandSandbox } from "./command-sandbox.js";

/** Options of the Bash tool family, chosen by the program embedding Gyre (not by the model). */
export interface BashToolsOptions {
  /** Run commands under a pseudo-terminal (`@lydell/node-pty`) instead of pipes. */
  pty?: boolean;
  /** Shell to run commands with (default: `$SHELL` when POSIX-like, else /bin/bash). */
  shell?: string;
  /**
   * Extra environment variables for every command (applied last, so a key given here is
   * passed even if it is one of the withheld provider keys).
   */
  env?: Record<string, string>;
  /**
   * Provider API-key variables that commands may inherit after all. By default commands do
   * not inherit the keys Gyre itself uses — ANTHROPIC_API_KEY, OPENAI_API_KEY,
   * OPENAI_COMPATIBLE_API_KEY and every other built-in provider's key (`providerKeyEnvNames()`)
   * and those in `secretEnv` — so a command cannot print them to the model. List a name here
   * when a command needs the key (e.g. a script that calls the API itself).
   */
  passEnv?: string[];
  /**
   * More variables commands must not inherit, on top of the built-in providers' keys: the
   * loop passes the key variables of the run's configured `providers` here.
   */
  secretEnv?: string[];
  /** Timeout when the model gives none (default 120,000 ms). */
  defaultTimeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL when stopping a command's processes (default 2,000). */
  killGraceMs?: number;
  /** How often a running foreground command reports progress (default 1,000 ms). */
  progressIntervalMs?: number;
  /**
   * Most bytes of one command's output kept on disk once it outgrows memory (default 64 MiB,
   * as in Claude Code; at least 4 KiB): past it the file keeps the first and last halves and
   * says how much was cut between them. The files are deleted when the session's run ends.
   */
  maxOutputFileBytes?: number;
  /**
   * Run commands (foreground, background, pty) inside this OS sandbox; Bash then offers
   * `dangerouslyDisableSandbox`. The loop sets it from the `sandbox` settings (src/sandbox).
   */
  sandbox?: CommandSandbox;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
/** The longest timeout a command may ask for; larger requests are clamped to it. */
export const MAX_TIMEOUT_MS = 600_000;
/** Output limit of the Bash tools, as in Claude Code. */
export const BASH_MAX_OUTPUT_CHARS = 30_000;
