import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { lstatOrNone } from "./workspace-walk.js";

/**
 * Config keys `git init` and `git clone` write, and `user.*`: none names a program. Everything
 * else is refused rather than judged, since git has dozens of keys that run code on status,
 * diff, commit or fetch (core.fsmonitor, core.hooksPath, core.pager, core.sshCommand,
 * core.editor, diff.external, filter.*, include.path, includeIf.*, remote.*.uploadpack,
 * remote.*.vcs, credential.helper, gpg.program, url.*.insteadOf, …) and more come with each
 * release. `extensions.*` beyond the object format is refused too (worktreeConfig makes git read
 * config.worktree).
 */
const ALLOWED_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)$/,
  /^extensions\.objectformat$/,
  /^user\.(name|email)$/,
  /^remote\.[^\n]+\.(url|fetch|mirror)$/,
  /^branch\.[^\n]+\.(remote|merge)$/,
];
/**
 * Remote URLs a fetch reaches without running anything of the repository's choosing: network
 * transports. A local path is refused: git would run upload-pack in that folder, which could
 * be another planted repository.
 */
const NETWORK_URL = /^(?:(?:https?|ssh|git):\/\/|[\w.-]+@[\w.-]+:)/i;
/** Files that send git to another folder's config and hooks, or to a second config. */
const REDIRECTS = ["commondir", "config.worktree", "gitdir"];
/** Folders whose repositories (submodules', linked worktrees') have their own config and hooks. */
const SUBREPOSITORIES = ["modules", "worktrees"];
const CONFIG_TIMEOUT_MS = 10_000;

/**
 * Why the host's git could run code the repository in `gitDir` names, or undefined when it
 * could not: a regular `config` file (or none) with only the keys above, `hooks/` holding only
 * `*.sample` files (git runs a hook by its exact name), no file sending git elsewhere, and no
 * repositories of submodules or worktrees inside.
 */
export function unsafeRepositoryReason(gitDir: string): string | undefined {
  for (const name of REDIRECTS) if (lstatOrNone(path.join(gitDir, name))) return `it has a ${name} file`;
  for (const name of SUBREPOSITORIES) {
    const folder = path.join(gitDir, name);
    const stats = lstatOrNone(folder);
    if (stats && (!stats.isDirectory() || names(folder).length > 0)) return `its ${name}/ is not empty`;
  }
  const hooks = path.join(gitDir, "hooks");
  const hooksStats = lstatOrNone(hooks);
  if (hooksStats && !hooksStats.isDirectory()) return "its hooks are not a folder";
  const hook = names(hooks).find((name) => !name.endsWith(".sample"));
  if (hook !== undefined) return `it has a hook (hooks/${hook})`;
  return unsafeConfigReason(path.join(gitDir, "config"));
}

function unsafeConfigReason(config: string): string | undefined {
  const stats = lstatOrNone(config);
  if (!stats) return undefined;
  if (!stats.isFile()) return "its config is not a regular file";
  const entries = readConfig(config);
  if (!entries) return "its config cannot be read";
  for (const [key, value] of entries) {
    if (!ALLOWED_KEYS.some((allowed) => allowed.test(key))) return `its config sets ${key}`;
    if (/^remote\..+\.url$/.test(key) && !NETWORK_URL.test(value)) return `its config sets ${key} to a local path`;
  }
  return undefined;
}

/**
 * The config file's entries as git itself parses them (quoting, continuation lines, a key on
 * its section's line): `git config --file` reads only that file, includes not followed, and
 * runs nothing; from `/`, with no system or global config, outside any repository.
 */
function readConfig(config: string): Array<[string, string]> | undefined {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  const listing = spawnSync("git", ["config", "--file", config, "--no-includes", "--list", "-z"], {
    cwd: "/",
    env: { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: "/" },
    encoding: "utf8",
    timeout: CONFIG_TIMEOUT_MS,
    stdio: ["ignore", "pipe", "ignore"],
  });
  if (listing.status !== 0) return undefined;
  return listing.stdout
    .split("\0")
    .filter((record) => record !== "")
    .map((record) => {
      const newline = record.indexOf("\n");
      return newline === -1 ? [record, ""] : [record.slice(0, newline), record.slice(newline + 1)];
    });
}

function names(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
