import { errorMessage, GyreError } from "../../errors/index.js";
import { fsErrorCode } from "./paths.js";
import { fileNotFoundError } from "./paths-suggest.js";

/**
 * Turn a failed fs call on `path` into an error the model can act on: a missing file names
 * near matches, a permission problem says so plainly. Errors that are already `GyreError`s
 * pass through.
 */
export async function fileAccessError(
  error: unknown,
  path: string,
  cwd: string,
  toolName: string,
  action: "read" | "write",
): Promise<GyreError> {
  if (error instanceof GyreError) return error;
  const code = fsErrorCode(error);
  const options = { toolName, cause: error };
  switch (code) {
    case "ENOTDIR":
      if (action === "write") {
        return new GyreError("tool_error", `Cannot write ${path}: part of its folder path is a file.`, options);
      }
      return fileNotFoundError(path, cwd, toolName);
    case "ENOENT":
      return fileNotFoundError(path, cwd, toolName);
    case "EACCES":
    case "EPERM":
      return new GyreError("tool_error", `Permission denied: cannot ${action} ${path} (${code}).`, options);
    case "EISDIR":
      return isDirectoryError(path, toolName);
    case "ELOOP":
      return new GyreError("tool_error", `Too many levels of symbolic links (a loop?) at ${path}.`, options);
    default:
      return new GyreError("tool_error", `Cannot ${action} ${path}: ${errorMessage(error)}`, options);
  }
}

/** The error for a directory given where a file was expected. */
export function isDirectoryError(path: string, toolName: string): GyreError {
  return new GyreError(
    "tool_error",
    `${path} is a directory, not a file. ${toolName} works on files only; ` +
      "list a directory with the Bash tool (ls) or find files with Glob.",
    { toolName },
  );
}
