import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** What the sandbox shows empty: a server's files there are invisible to it unless bound. */
const HIDDEN_ROOTS = ["/tmp", "/run"];

/**
 * What a stdio MCP server started in the sandbox needs to see of its own that the sandbox hides
 * (/tmp and /run are empty inside): the folder its program is installed in (`…/bin/node` → `…`,
 * as for a Node unpacked under /tmp, whose `npx` links into `…/lib`), the package folder of a
 * script it is given (`node /tmp/srv/dist/index.js` → `/tmp/srv`, or the folder holding the
 * outermost `node_modules` when the script lies in one, where its dependencies are), and its
 * working directory. Read-only; the server's configuration is the user's, not the model's. Never
 * /tmp or /run as a whole (other programs' sockets live there): then only the file itself.
 */
export function serverFolders(
  command: string,
  args: readonly string[],
  cwd: string,
  searchPath: string | undefined,
): string[] {
  const programs = programPaths(command, cwd, searchPath);
  const scripts = args
    .filter((arg) => !arg.startsWith("-"))
    .map((arg) => path.resolve(cwd, arg))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true);
  const folders = [
    ...programs.map((file) => [file, installRoot(file)] as const),
    ...scripts.flatMap((file) => [[file, packageRoot(file)] as const, [real(file), packageRoot(real(file))] as const]),
    [cwd, cwd] as const,
  ];
  const shown = folders.flatMap(([file, folder]) => {
    if (!isHidden(file)) return [];
    return [HIDDEN_ROOTS.includes(folder) || !isHidden(folder) ? file : folder];
  });
  return [...new Set(shown)].filter((file) => !HIDDEN_ROOTS.includes(file));
}

/** The program as named on PATH (or in `cwd`) and the file it links to. */
function programPaths(command: string, cwd: string, searchPath: string | undefined): string[] {
  const candidates = command.includes("/")
    ? [path.resolve(cwd, command)]
    : (searchPath ?? "").split(path.delimiter).flatMap((dir) => (dir ? [path.join(dir, command)] : []));
  const found = candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
  return found ? [...new Set([found, real(found)])] : [];
}

/** `prefix/bin/node` → `prefix`; otherwise the program's folder. */
function installRoot(file: string): string {
  const dir = path.dirname(file);
  return path.basename(dir) === "bin" ? path.dirname(dir) : dir;
}

/** The nearest folder with a package.json, lifted to the folder of the outermost node_modules it lies in. */
function packageRoot(file: string): string {
  let root = path.dirname(file);
  for (let dir = root; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) {
      root = dir;
      break;
    }
  }
  const parts = root.split(path.sep);
  const modules = parts.indexOf("node_modules");
  return modules > 0 ? parts.slice(0, modules).join(path.sep) || path.sep : root;
}

function isHidden(file: string): boolean {
  return HIDDEN_ROOTS.some((root) => file === root || file.startsWith(`${root}/`));
}

function real(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}
