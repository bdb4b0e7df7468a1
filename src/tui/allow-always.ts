import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, GyreError } from "../errors/index.js";
import { atomicWriteFile } from "../files/index.js";
import type { PermissionUpdate } from "../permissions/index.js";

/** The rules of a permission prompt's suggestions, in Claude Code's syntax (`Bash(npm test:*)`). */
export function suggestedRules(suggestions: readonly PermissionUpdate[]): string[] {
  const rules: string[] = [];
  for (const update of suggestions) {
    if (update.type !== "addRules" || update.behavior !== "allow") continue;
    for (const rule of update.rules) {
      rules.push(rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`);
    }
  }
  return rules;
}

/**
 * What `.gyre/.gitignore` holds: the files Gyre writes into a project that are this machine's
 * own, not the project's (Claude Code keeps `.claude/settings.local.json` out of git the same way).
 */
export const GYRE_GITIGNORE = [
  "# Written by Gyre: this machine's own files, kept out of the repository.",
  "settings.local.json",
  "sessions.db",
  "sessions.db-*",
  "",
].join("\n");

/**
 * Adds allow rules to `<cwd>/.gyre/settings.local.json` (`permissions.allow`), keeping the
 * rest of the file, so "allow always" outlives this session. A file that is not a JSON
 * object is left alone (`config_error`): the person's own settings are never overwritten.
 * When the file is created, `.gyre/.gitignore` is too (unless there is one): written once,
 * so a person who removes or edits it is not overruled.
 */
export async function persistAllowRules(cwd: string, rules: readonly string[]): Promise<string> {
  const directory = join(cwd, ".gyre");
  const file = join(directory, "settings.local.json");
  let settings: Record<string, unknown> = {};
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new GyreError("config_error", `Cannot read ${file}: ${errorMessage(error)}; no rule was added`, {
      cause: error,
    });
  });
  if (text !== undefined && text.trim() !== "") settings = parseObject(text, file);
  const permissions = isObject(settings.permissions) ? settings.permissions : {};
  const allow = Array.isArray(permissions.allow) ? permissions.allow.filter((r) => typeof r === "string") : [];
  for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
  settings.permissions = { ...permissions, allow };
  await mkdir(directory, { recursive: true });
  await atomicWriteFile(file, Buffer.from(`${JSON.stringify(settings, null, 2)}\n`), {
    toolName: "settings",
    displayPath: file,
  });
  if (text === undefined) await writeGitignoreOnce(directory);
  return file;
}

/**
 * `.gyre/.gitignore`, unless the folder has one already (never overwritten). A failure to
 * write it does not undo the rule that was saved: the rule is what the person asked for.
 */
async function writeGitignoreOnce(directory: string): Promise<void> {
  await writeFile(join(directory, ".gitignore"), GYRE_GITIGNORE, { flag: "wx" }).catch(() => undefined);
}

function parseObject(text: string, file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new GyreError("config_error", `${file} is not valid JSON (${errorMessage(error)}); no rule was added`, {
      cause: error,
    });
  }
  if (!isObject(parsed)) throw new GyreError("config_error", `${file} is not a JSON object; no rule was added`);
  return parsed;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
