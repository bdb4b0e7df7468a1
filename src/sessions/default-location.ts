import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The folder of everything Gyre writes for the user (sessions, prompt history, OAuth tokens,
 * `gyre mcp add`'s servers): `$GYRE_HOME`, else `$XDG_DATA_HOME/gyre`, else `~/.gyre`.
 */
export function gyreDataFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GYRE_HOME) return resolve(env.GYRE_HOME);
  if (env.XDG_DATA_HOME) return join(resolve(env.XDG_DATA_HOME), "gyre");
  return join(homedir(), ".gyre");
}

/**
 * The user's session database, shared by every project (sessions are keyed by project):
 * `sessions.db` in Gyre's data folder (`$GYRE_HOME`, else `$XDG_DATA_HOME/gyre`, else `~/.gyre`). Kept out of the projects themselves, so it never
 * shows in `git status` or in the agent's own searches.
 */
export function defaultSqlitePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(gyreDataFolder(env), "sessions.db");
}

/**
 * The database file inside a project, `<dir>/.gyre/sessions.db`: where Gyre kept sessions
 * before, imported into the user's database on first use; pass it as `path` to keep a
 * project's sessions in the project.
 */
export function projectSqlitePath(dir: string): string {
  return join(resolve(dir), ".gyre", "sessions.db");
}

/** The key a directory's sessions are kept under: its real path (resolved when it does not exist). */
export function projectOf(dir: string): string {
  const resolved = resolve(dir);
  try {
    return realpathSync(resolved);
  } catch {
    return resolved;
  }
}
