import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";

export interface GitInfo {
  /** The work tree's top directory (where `.git` is). */
  root: string;
  /** The checked-out branch, or undefined when HEAD is detached. */
  branch: string | undefined;
  /** The commit HEAD points at when detached. */
  detachedAt: string | undefined;
}

/**
 * Find the git work tree that contains `cwd` and its current branch by reading `.git/HEAD`
 * directly: spawning `git` costs tens of milliseconds at start-up. Handles worktrees and
 * submodules, whose `.git` is a file pointing at the real git directory. Undefined when
 * `cwd` is not inside a repository.
 */
export async function readGitInfo(cwd: string): Promise<GitInfo | undefined> {
  const root = await findRepoRoot(cwd);
  if (root === undefined) return undefined;
  const gitDir = await resolveGitDir(join(root, ".git"));
  const head = gitDir === undefined ? undefined : await readText(join(gitDir, "HEAD"));
  const ref = head?.match(/^ref:\s*refs\/heads\/(.+)$/m)?.[1]?.trim();
  const sha = ref === undefined ? head?.trim().match(/^[0-9a-f]{40,64}$/)?.[0] : undefined;
  return { root, branch: ref, detachedAt: sha?.slice(0, 12) };
}

/** The nearest directory at or above `cwd` holding a `.git` directory or file. */
export async function findRepoRoot(cwd: string): Promise<string | undefined> {
  let dir = resolve(cwd);
  for (;;) {
    if (await exists(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

async function resolveGitDir(dotGit: string): Promise<string | undefined> {
  try {
    if ((await stat(dotGit)).isDirectory()) return dotGit;
  } catch {
    return undefined;
  }
  const pointer = (await readText(dotGit))?.match(/^gitdir:\s*(.+)$/m)?.[1]?.trim();
  if (!pointer) return undefined;
  return isAbsolute(pointer) ? pointer : resolve(dirname(dotGit), pointer);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}
