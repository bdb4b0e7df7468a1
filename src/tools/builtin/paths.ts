import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { GyreError } from "../../errors/index.js";

/**
 * Resolve a `file_path` from a tool input: it must be absolute (a leading `~/` counts, as
 * in a shell). `..` segments are resolved; symlinks are not (see `realTargetOf` in files/).
 * A relative path is refused with an error naming the absolute path the model likely meant.
 */
export function resolveToolPath(filePath: string, cwd: string, toolName: string): string {
  if (filePath === "~" || filePath.startsWith("~/")) return resolve(homedir(), filePath.slice(2));
  if (!isAbsolute(filePath)) {
    const guess = filePath === "" ? cwd : resolve(cwd, filePath);
    throw new GyreError(
      "tool_error",
      `file_path must be an absolute path, but "${filePath}" is relative. ` +
        `Call ${toolName} again with an absolute path, e.g. "${guess}".`,
      { toolName },
    );
  }
  return resolve(filePath);
}

export { fsErrorCode } from "../../errors/index.js";
