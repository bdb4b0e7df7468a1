import { homedir } from "node:os";
import path from "node:path";
import type { PermissionMode, PermissionSettings, SourcedRule } from "../permissions/index.js";
import { readSettingsFile } from "./read-settings-file.js";
import type { SettingsFile } from "./schema.js";
import { type SettingsScope, type SettingsSource, settingsSources } from "./sources.js";

/** A settings file that was found and read. */
export interface LoadedSettingsFile extends SettingsSource {
  settings: SettingsFile;
}

/** The `hooks` value of one file, unparsed; the hooks module validates and merges these. */
export interface HooksSource {
  source: string;
  scope: SettingsScope;
  hooks: unknown;
}

/** Settings merged across every file, ready for `PermissionPolicy.fromSettings`. */
export interface LoadedSettings extends PermissionSettings {
  permissions: {
    /** Rules from every file, concatenated lowest precedence first, each with its file. */
    allow: SourcedRule[];
    deny: SourcedRule[];
    ask: SourcedRule[];
    defaultMode?: PermissionMode;
    /** Absolute paths (relative entries resolved against their file's root, `~/` expanded). */
    additionalDirectories: string[];
  };
  /** Raw `hooks` of each file that has them, lowest precedence first. */
  hooks: HooksSource[];
  /** Merged key by key; a later file's value for a key wins. */
  env: Record<string, string>;
  model?: string;
  /** Every top-level key merged (later file wins), unknown keys included, `hooks` excluded. */
  merged: Record<string, unknown>;
  /** The files that were found, lowest precedence first. */
  files: LoadedSettingsFile[];
}

export interface LoadSettingsOptions {
  /** The project directory: its `.gyre/` and `.claude/` settings apply. */
  cwd: string;
  /** Home directory for user settings; defaults to the OS home (inject it in tests). */
  home?: string;
}

/**
 * Load and merge user, project and local settings from `.gyre/` and Claude Code's
 * `.claude/` folders (see `settingsSources` for the order). Rule lists and additional
 * directories concatenate across files; scalars come from the highest-precedence file that
 * sets them (local > project > user). Throws a `config_error` naming the file when a file
 * is unreadable, not JSON, or of the wrong shape.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const home = options.home ?? homedir();
  const sources = settingsSources({ cwd: options.cwd, home });
  const read = await Promise.all(sources.map((source) => readSettingsFile(source.path)));
  const files = sources.flatMap((source, index) => {
    const settings = read[index];
    return settings ? [{ ...source, settings }] : [];
  });
  return mergeSettings(files, home);
}

/** Merge already-read files, lowest precedence first. */
export function mergeSettings(files: readonly LoadedSettingsFile[], home: string): LoadedSettings {
  const result: LoadedSettings = {
    permissions: { allow: [], deny: [], ask: [], additionalDirectories: [] },
    hooks: [],
    env: {},
    merged: {},
    files: [...files],
  };
  const mergedPermissions: Record<string, unknown> = {};
  for (const file of files) {
    const { permissions, hooks, env, model, ...rest } = file.settings;
    Object.assign(result.merged, rest);
    if (permissions) {
      const { allow, deny, ask, defaultMode, additionalDirectories, ...other } = permissions;
      Object.assign(mergedPermissions, other);
      const sourced = (rules: string[] | undefined) =>
        (rules ?? []).map((rule) => ({ rule, source: file.path, root: file.root }));
      result.permissions.allow.push(...sourced(allow));
      result.permissions.deny.push(...sourced(deny));
      result.permissions.ask.push(...sourced(ask));
      if (defaultMode !== undefined) result.permissions.defaultMode = defaultMode;
      for (const dir of additionalDirectories ?? []) {
        const absolute = resolveDirectory(dir, file.root, home);
        if (!result.permissions.additionalDirectories.includes(absolute)) {
          result.permissions.additionalDirectories.push(absolute);
        }
      }
    }
    if (hooks !== undefined) result.hooks.push({ source: file.path, scope: file.scope, hooks });
    if (env) Object.assign(result.env, env);
    if (model !== undefined) result.model = model;
  }
  result.merged.permissions = {
    ...mergedPermissions,
    allow: result.permissions.allow.map((rule) => rule.rule),
    deny: result.permissions.deny.map((rule) => rule.rule),
    ask: result.permissions.ask.map((rule) => rule.rule),
    ...(result.permissions.defaultMode ? { defaultMode: result.permissions.defaultMode } : {}),
    additionalDirectories: result.permissions.additionalDirectories,
  };
  result.merged.env = result.env;
  if (result.model !== undefined) result.merged.model = result.model;
  return result;
}

function resolveDirectory(dir: string, root: string, home: string): string {
  if (dir === "~") return home;
  if (dir.startsWith("~/")) return path.join(home, dir.slice(2));
  return path.resolve(root, dir);
}
