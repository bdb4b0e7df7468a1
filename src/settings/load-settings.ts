import { homedir } from "node:os";
import path from "node:path";
import type { PermissionMode, PermissionSettings, SourcedRule } from "../permissions/index.js";
import { GyreError } from "../errors/index.js";
import { parseSettingsValue, readSettingsFile } from "./read-settings-file.js";
import type { SettingsFile } from "./schema.js";
import { type SettingsScope, type SettingsSource, settingsSources } from "./sources.js";
import { findTrustedFolder, realOrResolved } from "./trust.js";
import { type IgnoredProjectSettings, restrictUntrusted } from "./untrusted.js";

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
  /**
   * The files that were found, lowest precedence first; an untrusted project's files hold
   * only what was applied of them.
   */
  files: LoadedSettingsFile[];
  /**
   * With `requireTrust`, when the folder is not trusted: what its project and local files
   * asked for that was not applied. Absent when nothing was ignored.
   */
  ignored?: IgnoredProjectSettings;
}

export interface LoadSettingsOptions {
  /** The project directory: its `.gyre/` and `.claude/` settings apply. */
  cwd: string;
  /**
   * Home directory for user settings; defaults to the OS home (inject it in tests). Given, the
   * trust record is its `.gyre/trusted-folders.json`; else the data folder's (`trustStorePath`).
   */
  home?: string;
  /** Which scopes to read; default all. */
  sources?: readonly SettingsScope[];
  /**
   * Apply project and local files in full only if the person trusted `cwd` (or a folder
   * above it) with `gyre trust`; otherwise only their deny and ask rules apply and the rest
   * is reported in `ignored`. The CLI sets this. Default false: a caller that names the
   * files to read has chosen to trust them. User settings are always trusted.
   */
  requireTrust?: boolean;
  /** Settings the caller passed (`--settings`), over every file: a JSON file's path, or the settings object. */
  flagSettings?: string | Record<string, unknown>;
}

/**
 * Load and merge user, project and local settings from `.gyre/` and Claude Code's
 * `.claude/` folders (see `settingsSources` for the order). Rule lists and additional
 * directories concatenate across files; scalars come from the highest-precedence file that
 * sets them (local > project > user). With `requireTrust`, an untrusted folder's project
 * and local files contribute only deny and ask rules. Throws a `config_error` naming the
 * file when a file (or the trust record) is unreadable, not JSON, or of the wrong shape.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const home = options.home ?? homedir();
  const scopes = options.sources;
  const sources = settingsSources({ cwd: options.cwd, home }).filter(
    (source) => !scopes || scopes.includes(source.scope),
  );
  const read = await Promise.all(sources.map((source) => readSettingsFile(source.path)));
  const files: LoadedSettingsFile[] = sources.flatMap((source, index) => {
    const settings = read[index];
    return settings ? [{ ...source, settings }] : [];
  });
  if (options.flagSettings !== undefined) files.push(await readFlagSettings(options.flagSettings, options.cwd));
  const trusted = (file: LoadedSettingsFile) => file.scope === "user" || file.scope === "flag";
  const needTrust = options.requireTrust === true && files.some((file) => !trusted(file));
  if (!needTrust || (await findTrustedFolder(options.cwd, { home: options.home }))) return mergeSettings(files, home);
  const ignoredFiles: IgnoredProjectSettings["files"] = [];
  const applied = files.map((file) => {
    if (trusted(file)) return file;
    const { settings, ignored } = restrictUntrusted(file.settings);
    if (ignored.length > 0) ignoredFiles.push({ path: file.path, ignored });
    return { ...file, settings };
  });
  const merged = mergeSettings(applied, home);
  if (ignoredFiles.length === 0) return merged;
  return { ...merged, ignored: { folder: await realOrResolved(options.cwd), files: ignoredFiles } };
}

/**
 * The `flag` settings: an object is validated as a settings file, a string is a file's path
 * (relative to `cwd`) that must exist. Rules and directories in them are relative to `cwd`.
 */
async function readFlagSettings(value: string | Record<string, unknown>, cwd: string): Promise<LoadedSettingsFile> {
  const root = path.resolve(cwd);
  if (typeof value !== "string") {
    return { scope: "flag", path: "settings option", root, settings: parseSettingsValue(value, "settings option") };
  }
  const file = path.resolve(cwd, value);
  const settings = await readSettingsFile(file);
  if (!settings) throw new GyreError("config_error", `Settings file ${file} does not exist`);
  return { scope: "flag", path: file, root, settings };
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
