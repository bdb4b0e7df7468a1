import path from "node:path";
import type { SettingsFile } from "./schema.js";

/** One project or local settings file of an untrusted folder and what of it was not applied. */
export interface IgnoredSettingsFile {
  /** Absolute path of the file. */
  path: string;
  /** Keys that were not applied: `permissions.allow`, `permissions.defaultMode`, `hooks`, `env`, … */
  ignored: string[];
}

/**
 * What the project and local settings files of a folder the person has not trusted asked
 * for and did not get. Only files that had something ignored are listed.
 */
export interface IgnoredProjectSettings {
  /** The project folder (real path): what `gyre trust` takes. */
  folder: string;
  files: IgnoredSettingsFile[];
}

/** Keys with no effect, never worth reporting (editors' schema hint). */
const INERT_KEYS = new Set(["$schema"]);

/**
 * The part of an untrusted project's settings file that applies: its `permissions.deny` and
 * `permissions.ask` rules, which can only restrict. Everything else can grant (allow rules,
 * `defaultMode`, `additionalDirectories`) or run something (`hooks`, `env`, `mcpServers`,
 * helpers), so it is dropped and each non-empty key is listed in `ignored`. An allow list,
 * not a deny list: a key Gyre learns to honour later is ignored here until it is added.
 */
export function restrictUntrusted(settings: SettingsFile): { settings: SettingsFile; ignored: string[] } {
  const ignored: string[] = [];
  const { permissions, ...rest } = settings;
  for (const [key, value] of Object.entries(rest)) {
    if (!INERT_KEYS.has(key) && !isEmpty(value)) ignored.push(key);
  }
  if (!permissions) return { settings: {}, ignored };
  const { deny, ask, ...grants } = permissions;
  const ignoredPermissions = Object.entries(grants)
    .filter(([, value]) => !isEmpty(value))
    .map(([key]) => `permissions.${key}`);
  const kept = { ...(deny ? { deny } : {}), ...(ask ? { ask } : {}) };
  return { settings: { permissions: kept }, ignored: [...ignoredPermissions, ...ignored] };
}

/** Both reports of one folder as one (settings files, then MCP config files). */
export function mergeIgnoredSettings(
  first: IgnoredProjectSettings | undefined,
  second: IgnoredProjectSettings | undefined,
): IgnoredProjectSettings | undefined {
  if (!first || !second) return first ?? second;
  return { folder: first.folder, files: [...first.files, ...second.files] };
}

/**
 * The folder whose settings files' grants (`permissions.allow`, `defaultMode`, directories)
 * were ignored because it is not trusted; `undefined` when none were. What a denial names
 * with `gyre trust`.
 */
export function untrustedPermissionsFolder(ignored: IgnoredProjectSettings | undefined): string | undefined {
  const granted = ignored?.files.some((file) => file.ignored.some((key) => key.startsWith("permissions.")));
  return granted ? ignored?.folder : undefined;
}

/**
 * One line for stderr: which files of which folder were partly ignored, that their deny and
 * ask rules still apply, and the command that trusts the folder. Paths are shown relative to
 * the folder.
 */
export function describeIgnoredSettings(ignored: IgnoredProjectSettings): string {
  const files = ignored.files
    .map((file) => `${path.relative(ignored.folder, file.path)} (${file.ignored.join(", ")})`)
    .join(", ");
  return (
    `ignored settings of untrusted folder ${ignored.folder}: ${files}; ` +
    `its deny and ask rules still apply. To trust it: gyre trust ${shellQuote(ignored.folder)}`
  );
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

/** Quoted only when needed, so the common path can be copied as shown. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
