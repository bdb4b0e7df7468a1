import { existsSync, lstatSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Paths commands cannot read by default: credentials of the usual tools, and Gyre's and
 * Claude Code's own state (sessions, trust records, OAuth tokens).
 */
export const DEFAULT_DENY_READ = [
  "~/.ssh",
  "~/.aws",
  "~/.gnupg",
  "~/.azure",
  "~/.kube",
  "~/.docker/config.json",
  "~/.config/gcloud",
  "~/.config/gh",
  "~/.netrc",
  "~/.npmrc",
  "~/.pypirc",
  "~/.git-credentials",
  "~/.gyre",
  "~/.claude/.credentials.json",
];

/**
 * Inside a writable directory, what stays read-only: files that control the agent or run
 * code on their own, so that a sandboxed command cannot widen its own limits for the next
 * run nor plant code the host's git runs. In `.git` that is what can name a program: hooks,
 * config and config.worktree (core.fsmonitor, filter drivers, core.hooksPath, include), and
 * the git folders of submodules (`modules/`) and linked worktrees (`worktrees/`, whose
 * `commondir` could point the worktree's git at a planted config), each with its own hooks
 * and config. The rest stays writable so that commits work: objects, refs, index, logs, and
 * `info/` (attributes only name filter drivers, which only config defines; exclude runs nothing).
 */
const GIT_PROTECTED = [".git/hooks", ".git/config", ".git/config.worktree", ".git/modules", ".git/worktrees"];
export const PROTECTED_IN_WORKSPACE = [...GIT_PROTECTED, ".gyre", ".claude", ".mcp.json", ".claude.json"];

/** Where a relative rule path is anchored. */
export interface PathAnchors {
  cwd: string;
  home: string;
  /** The settings file's project root, for `/path` rule patterns. */
  root?: string;
}

/**
 * A path of a settings list or a `Read(...)`/`Edit(...)` rule as a concrete path to mount,
 * with Claude Code's anchors (`//abs`, `~/`, `/` from the settings root, `./` and bare from
 * cwd). A trailing `/**` or `/*` means the directory; a pattern with other glob characters
 * cannot be a mount and gives undefined (permission rules still apply to Gyre's own tools).
 */
export function mountPath(pattern: string, anchors: PathAnchors): string | undefined {
  let text = pattern.replace(/\/\*\*?$/, "");
  if (/[*?[\]{}!]/.test(text)) return undefined;
  if (text.startsWith("//")) text = text.slice(1);
  else if (text === "~" || text.startsWith("~/")) text = path.join(anchors.home, text.slice(1));
  else if (text.startsWith("/")) text = anchors.root ? path.join(anchors.root, text) : text;
  else text = path.resolve(anchors.cwd, text);
  return path.resolve(text);
}

/** A `Read(...)`/`Edit(...)` rule's path content when the rule names one of those families. */
export function rulePath(rule: string, family: "read" | "edit"): string | undefined {
  const match = /^(\w+)\((.+)\)$/.exec(rule.trim());
  if (!match) return undefined;
  const names = family === "read" ? ["Read"] : ["Edit", "Write", "MultiEdit", "NotebookEdit"];
  return names.includes(match[1] ?? "") ? match[2] : undefined;
}

/**
 * The protected paths that exist in `dir` (only git's in a repository nested in the workspace):
 * mounted read-only over themselves. A `.git` that is a file (a linked worktree, a submodule's
 * checkout) names the folder git takes hooks and config from: read-only too.
 */
export function protectedPathsIn(dir: string, gitOnly = false): string[] {
  const gitFile = path.join(dir, ".git");
  const pointer = statSync(gitFile, { throwIfNoEntry: false })?.isFile() === true ? [gitFile] : [];
  const names = gitOnly ? GIT_PROTECTED : PROTECTED_IN_WORKSPACE;
  return [...pointer, ...names.map((name) => path.join(dir, name)).filter((file) => existsSync(file))];
}

/**
 * Protected folders missing from `dir`: an empty read-only folder is mounted there, so a
 * command cannot create them (the folder stays on disk, empty). Missing protected files
 * cannot be held that way (an empty `.mcp.json` would be invalid): see `createdProtectedFiles`.
 */
export function missingProtectedFolders(dir: string, gitOnly = false): string[] {
  // In a git worktree `.git` is a file (its hooks live in the main checkout's folder).
  const gitFolder = statSync(path.join(dir, ".git"), { throwIfNoEntry: false })?.isDirectory() === true;
  const folders = [
    ...(gitOnly ? [] : [".gyre", ".claude"]),
    ...(gitFolder ? [".git/hooks", ".git/modules", ".git/worktrees"] : []),
  ];
  return folders.map((name) => path.join(dir, name)).filter((folder) => !existsSync(folder));
}

/**
 * Protected files that do not exist now: those of the workspace directories `dirs`, and git's
 * of the nested `repositories`; `.git/commondir` among them, which would send the host's git to
 * another folder's config and hooks.
 */
export function missingProtectedFiles(dirs: readonly string[], repositories: readonly string[] = []): string[] {
  const git = [".git/commondir", ".git/config.worktree"];
  const files = [
    ...dirs.flatMap((dir) => [".mcp.json", ".claude.json", ...git].map((name) => path.join(dir, name))),
    ...repositories.flatMap((dir) => git.map((name) => path.join(dir, name))),
  ];
  // lstat: a dangling link (`.git/commondir -> ../later.txt`) is there, and git follows it once its target appears.
  return files.filter((file) => !lstatOrNone(file) && isDirectory(path.dirname(file)));
}

/** lstat without throwing (a missing path, or a file where a folder of the path was: ENOTDIR). */
export function lstatOrNone(file: string) {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
}
