import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

let cached: { pathVariable: string | undefined; found: string | undefined } | undefined;

/**
 * The path of the `rg` executable on `PATH`, or undefined when there is none. The answer is
 * remembered until `PATH` changes, so a search does not probe the file system each time.
 */
export function findRipgrep(pathVariable: string | undefined = process.env.PATH): string | undefined {
  if (cached && cached.pathVariable === pathVariable) return cached.found;
  let found: string | undefined;
  const names = process.platform === "win32" ? ["rg.exe", "rg"] : ["rg"];
  for (const folder of (pathVariable ?? "").split(delimiter)) {
    if (folder === "") continue;
    for (const name of names) {
      const candidate = join(folder, name);
      try {
        accessSync(candidate, constants.X_OK);
        found = candidate;
        break;
      } catch {
        // Not here; keep looking.
      }
    }
    if (found) break;
  }
  cached = { pathVariable, found };
  return found;
}
