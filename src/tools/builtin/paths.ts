import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { GyreError } from "../../errors/index.js";

/**
 * Resolve a `file_path` from a tool input: it must be absolute (a leading `~/` counts, as
 * in a shell). `..` segments are resolved; symlinks are not (see {@link realPathOf}).
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

/**
 * The real path of `path` with every symlink followed. For a path that does not exist yet,
 * the nearest existing ancestor is resolved and the rest appended, so a file about to be
 * created is tracked under the same name it will have once it exists.
 */
export async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await realPathOf(parent), basename(path));
  }
}

export { fsErrorCode } from "../../errors/index.js";
