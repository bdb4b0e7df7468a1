import { realpathSync } from "node:fs";
import path from "node:path";

/**
 * How the person starts this `gyre` again, for the "go on with" hints: `gyre` when their PATH
 * finds this very program, `npx gyre` when it is a project's dependency, else `node` and the
 * path of its executable (a checkout's `dist/bin/gyre.js`, where no `gyre` is on the PATH).
 */
export function gyreCommand(bin = process.argv[1], searchPath = process.env.PATH ?? ""): string {
  if (bin === undefined) return "gyre";
  const self = realOrSame(bin);
  const onPath = searchPath
    .split(path.delimiter)
    .filter(Boolean)
    .some((folder) => realOrSame(path.join(folder, "gyre")) === self);
  if (onPath) return "gyre";
  if (self.split(path.sep).join("/").includes("/node_modules/gyre/")) return "npx gyre";
  return `node ${shellQuote(self)}`;
}

function realOrSame(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
