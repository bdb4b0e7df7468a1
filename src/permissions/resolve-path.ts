import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

const MAX_LINKS = 40;

/**
 * The real location a path refers to: `..` resolved, and symlinks followed through the
 * deepest existing ancestor — including a dangling symlink as the last existing component,
 * since writing to it would create its target.
 */
export function resolveRealPath(target: string, links = 0): string {
  const absolute = path.resolve(target);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(realpathSync.native(current), ...rest);
    } catch {
      const link = readLinkOrUndefined(current);
      if (link !== undefined && links < MAX_LINKS) {
        return resolveRealPath(path.join(path.resolve(path.dirname(current), link), ...rest), links + 1);
      }
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

function readLinkOrUndefined(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `target` is `dir` or inside it (both absolute). */
export function isInside(target: string, dir: string): boolean {
  const relative = path.relative(dir, target);
  if (relative === "") return true;
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** Expand a leading `~` to `home`. */
export function expandHome(file: string, home: string): string {
  if (file === "~") return home;
  return file.startsWith("~/") ? path.join(home, file.slice(2)) : file;
}
