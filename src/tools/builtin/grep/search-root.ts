import { statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, relative, resolve } from "node:path";
import { GyreError } from "../../../errors/index.js";

export interface SearchRoot {
  /** Absolute path. */
  path: string;
  isFile: boolean;
  /** How the root is written in output: `""` for the cwd, relative inside it, absolute outside. */
  display: string;
}

/**
 * Resolve a tool's `path` input (absolute, `~/...`, or relative to `cwd`; default `cwd`)
 * and check that it exists. A missing path is an error naming what was looked for.
 */
export function resolveSearchRoot(input: string | undefined, cwd: string, toolName: string): SearchRoot {
  const given = input ?? "";
  const path = given === "~" || given.startsWith("~/") ? resolve(homedir(), given.slice(2)) : resolve(cwd, given);
  let isFile: boolean;
  try {
    // One synchronous stat: microseconds, where an async one waits a thread-pool round trip
    // that is measurable against a whole Glob of a small tree.
    isFile = !statSync(path).isDirectory();
  } catch (error) {
    throw new GyreError(
      "tool_error",
      `Path does not exist: ${given} (resolved to ${path}). Current working directory: ${cwd}`,
      { toolName, cause: error },
    );
  }
  return { path, isFile, display: displayPath(path, cwd) };
}

/** `path` as shown to the model: relative to `cwd` when inside it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === "") return "";
  return rel === ".." || rel.startsWith("../") || isAbsolute(rel) ? path : rel;
}
