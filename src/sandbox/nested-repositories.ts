import { type Dirent, readdirSync } from "node:fs";
import path from "node:path";

/** How deep below a workspace directory repositories are looked for: `packages/app/vendor/lib/.git`. */
const MAX_DEPTH = 4;
/** Folders listed at most per workspace directory, so a huge tree costs a bounded time at start. */
const MAX_FOLDERS = 4000;
/** Never holds a repository the host's git would enter on its own (npm strips `.git` from git dependencies). */
const SKIPPED = new Set(["node_modules", ".git"]);

/**
 * Repositories inside the workspace (`vendor/lib/.git`, a submodule's checkout), found once when
 * the run starts, breadth first, at most MAX_DEPTH folders down and MAX_FOLDERS folders in all,
 * symbolic links not followed: their `.git` gets the protection of the workspace's own (the
 * host's git runs their hooks and config when someone works there, and `git status` in the outer
 * repository enters submodules). Limits, said in docs/sandbox.md: a repository deeper or past the
 * bound, or one a command creates during the run (`git init`, `git clone`), is not protected. One
 * created at a submodule path (a gitlink of a workspace repository's index), where the host's git
 * would enter it on its own, is set aside after the command (gitlinks.ts); one elsewhere runs
 * nothing until someone runs git in it.
 */
export function nestedRepositories(dir: string): string[] {
  const found: string[] = [];
  let level = [dir];
  let listed = 0;
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (listed++ >= MAX_FOLDERS) return found;
      const list = entries(folder);
      if (depth > 0 && list.some((entry) => entry.name === ".git")) found.push(folder);
      if (depth === MAX_DEPTH) continue;
      for (const entry of list) {
        if (entry.isDirectory() && !SKIPPED.has(entry.name)) next.push(path.join(folder, entry.name));
      }
    }
    level = next;
  }
  return found;
}

function entries(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}
