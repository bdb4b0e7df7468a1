/** Options of the Bash tool family, chosen by the program embedding Gyre (not by the model). */
export interface BashToolsOptions {
  /** Run commands under a pseudo-terminal (`@lydell/node-pty`) instead of pipes. */
  pty?: boolean;
  /** Shell to run commands with (default: `$SHELL` when POSIX-like, else /bin/bash). */
  shell?: string;
  /** Extra environment variables for every command (applied last). */
  env?: Record<string, string>;
  /** Timeout when the model gives none (default 120,000 ms). */
  defaultTimeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL when stopping a process tree (default 2,000). */
  killGraceMs?: number;
  /** How often a running foreground command reports progress (default 1,000 ms). */
  progressIntervalMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
/** The longest timeout a command may ask for; larger requests are clamped to it. */
export const MAX_TIMEOUT_MS = 600_000;
/** Output limit of the Bash tools, as in Claude Code. */
export const BASH_MAX_OUTPUT_CHARS = 30_000;
