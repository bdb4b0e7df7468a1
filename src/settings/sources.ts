import path from "node:path";

/**
 * Precedence of a settings file: `flag` > `local` > `project` > `user`. `flag` is the settings
 * the caller passed (`settings` option, `--settings`): trusted, as user settings are.
 */
export type SettingsScope = "user" | "project" | "local" | "flag";

/** A settings file location. `root` is what its `/path` rules and relative directories are relative to. */
export interface SettingsSource {
  scope: SettingsScope;
  path: string;
  root: string;
}

/**
 * Where settings are read from, lowest precedence first. Claude Code's files come before
 * Gyre's at each scope, so a `.gyre` file overrides its `.claude` sibling. The project is the
 * working directory itself (as Claude Code does), not the enclosing git root: what applies
 * is then obvious from where the agent was started. A file reachable as both user and project
 * settings (cwd is home) is read once, as user settings.
 */
export function settingsSources(options: { cwd: string; home: string }): SettingsSource[] {
  const cwd = path.resolve(options.cwd);
  const home = path.resolve(options.home);
  const sources: SettingsSource[] = [];
  const add = (scope: SettingsScope, root: string, file: string) => {
    for (const dir of [".claude", ".gyre"]) {
      const full = path.join(root, dir, file);
      if (!sources.some((source) => source.path === full)) sources.push({ scope, path: full, root });
    }
  };
  add("user", home, "settings.json");
  add("project", cwd, "settings.json");
  add("local", cwd, "settings.local.json");
  return sources;
}
