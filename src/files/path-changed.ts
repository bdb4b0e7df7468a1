import { GyreError } from "../errors/index.js";

/** Who asks, for messages: the path as the caller knows it and the tool named in errors. */
export interface FileAccessor {
  /** The path as the caller knows it (a tool's `file_path`). */
  shown: string;
  /** The tool named in errors (`Read`, `Write`, `Edit`). */
  toolName: string;
}

/**
 * The refusal when what a path leads to changed between the moment it was resolved (or approved)
 * and the moment it was opened: a folder on it renamed, or swapped for a symlink. The file that
 * was opened is never used, and the new target is never tried.
 */
export function pathChangedError(
  accessor: FileAccessor,
  expected: string,
  action: "read" | "written",
  cause?: unknown,
): GyreError {
  return new GyreError(
    "tool_error",
    `Cannot use ${accessor.shown}: the path changed while it was being opened (it no longer leads to ` +
      `${expected}: a folder on it was renamed or replaced by a symlink); nothing was ${action}.`,
    { toolName: accessor.toolName, ...(cause !== undefined && { cause }) },
  );
}
