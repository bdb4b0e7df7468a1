import picomatch from "picomatch";

/**
 * Folders and files that control the agent or run code on their own: git's config and
 * hooks (`core.fsmonitor`, `pre-commit`), Gyre's and Claude Code's settings, hooks, agents
 * and commands, and MCP server lists. Writing one is never covered by a rule or by
 * `acceptEdits`: it always asks, except in `bypassPermissions`.
 */
const PROTECTED_FOLDERS = [".git", ".gyre", ".claude"];
const PROTECTED_FILES = [".mcp.json", ".claude.json"];

/** Whether a path (as written or resolved) is inside a protected folder or is a protected file. */
export function isProtectedPath(file: string): boolean {
  const segments = file.split(/[\\/]/);
  return segments.some((segment) => PROTECTED_FOLDERS.includes(segment)) || PROTECTED_FILES.includes(segments.at(-1)!);
}

/**
 * Whether a command argument may name a protected path: looser than `isProtectedPath`, so
 * that `--output=.git/config` and `-o.gyre/settings.json` count too.
 */
export function mentionsProtectedPath(text: string): boolean {
  return /\.(git|gyre|claude)([\\/]|$)|\.mcp\.json|\.claude\.json/.test(text);
}

/** Whether a glob pattern could expand to a protected path (bash skips dot names unless the pattern spells the dot). */
export function globMayMatchProtected(pattern: string): boolean {
  const names = [...PROTECTED_FOLDERS, ...PROTECTED_FILES];
  return pattern
    .split("/")
    .some((segment) => names.some((name) => picomatch.isMatch(name, segment, { dot: false, nobrace: true })));
}
