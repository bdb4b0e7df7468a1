import { homedir } from "node:os";
import { readSettingsFile } from "./read-settings-file.js";
import type { SettingsFile } from "./schema.js";
import { settingsSources } from "./sources.js";
import { restrictUntrusted } from "./untrusted.js";

/** A project or local settings file as written, with what of it applies only in a trusted folder. */
export interface ProjectSettingsFile {
  /** Absolute path of the file. */
  path: string;
  scope: "project" | "local";
  settings: SettingsFile;
  /**
   * Keys that apply only once the folder is trusted (`permissions.allow`, `hooks`, `env`, …),
   * as the run reports them in `ignored_settings`; empty when the file only restricts.
   */
  needsTrust: string[];
}

/**
 * The project and local settings files of `cwd` that exist (`.claude/` then `.gyre/`, project
 * then local), limited to `scopes`: what trusting the folder would apply. A file reachable as
 * user settings too (cwd is home) is user settings, never listed here. A malformed file is the
 * `config_error` {@link readSettingsFile} throws.
 */
export async function readProjectSettingsFiles(options: {
  cwd: string;
  home?: string;
  scopes?: ReadonlyArray<"user" | "project" | "local">;
}): Promise<ProjectSettingsFile[]> {
  const scopes = options.scopes ?? ["project", "local"];
  const sources = settingsSources({ cwd: options.cwd, home: options.home ?? homedir() }).filter(
    (source): source is typeof source & { scope: "project" | "local" } =>
      (source.scope === "project" || source.scope === "local") && scopes.includes(source.scope),
  );
  const read = await Promise.all(sources.map((source) => readSettingsFile(source.path)));
  return sources.flatMap((source, index) => {
    const settings = read[index];
    if (!settings) return [];
    return [{ path: source.path, scope: source.scope, settings, needsTrust: restrictUntrusted(settings).ignored }];
  });
}
