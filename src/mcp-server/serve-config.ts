import { GYRE_VERSION } from "../version.js";
import type { QueryOptions } from "../run/index.js";

/** How `gyre mcp serve` was started: one configuration for every client, call and session. */
export interface ServeConfig {
  /**
   * The options of every agent run (model, limits, settings files, permission mode and
   * rules); `--tools` calls are judged by the same permission settings.
   */
  query: QueryOptions & { cwd: string };
  /** Also offer Gyre's built-in tools (Bash, Read, Write, …) as MCP tools (`--tools`). */
  builtinTools: boolean;
  /** Where log lines go: stderr, never stdout (over stdio, stdout is the protocol). */
  log: (line: string) => void;
}

/** The server's name and version in MCP's `initialize`. */
export const SERVER_INFO = { name: "gyre", version: GYRE_VERSION } as const;
