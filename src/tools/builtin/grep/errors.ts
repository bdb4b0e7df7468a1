import { GyreError } from "../../../errors/index.js";
import { knownTypeNames } from "./file-types.js";

/** The error for a pattern neither backend can compile, worded for the model to fix it. */
export function invalidPatternError(pattern: string, detail: string): GyreError {
  return new GyreError(
    "tool_error",
    `Invalid regex pattern ${JSON.stringify(pattern)}: ${detail.trim()}\n` +
      "Grep uses ripgrep (Rust regex) syntax; escape literal characters such as ( [ { . * + ? with a backslash.",
    { toolName: "Grep" },
  );
}

/** The error for a `type` that is not a known file type. */
export function unknownTypeError(type: string): GyreError {
  return new GyreError(
    "tool_error",
    `Unknown file type "${type}". Known types include: ${knownTypeNames().join(", ")}. ` +
      'Use glob (e.g. "*.ext") for other files.',
    { toolName: "Grep" },
  );
}
