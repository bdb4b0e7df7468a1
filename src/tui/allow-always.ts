import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { GyreError } from "../errors/index.js";
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
 * Adds allow rules to `<cwd>/.gyre/settings.local.json` (`permissions.allow`), keeping the
 * rest of the file, so "allow always" outlives this session. A file that is not a JSON
 * object is left alone (`config_error`): the person's own settings are never overwritten.
 */
export async function persistAllowRules(cwd: string, rules: readonly string[]): Promise<string> {
  const directory = join(cwd, ".gyre");
  const file = join(directory, "settings.local.json");
  let settings: Record<string, unknown> = {};
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (text !== undefined && text.trim() !== "") {
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) throw new GyreError("config_error", `${file} is not a JSON object; no rule was added`);
    settings = parsed;
  }
  const permissions = isObject(settings.permissions) ? settings.permissions : {};
  const allow = Array.isArray(permissions.allow) ? permissions.allow.filter((r) => typeof r === "string") : [];
  for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
  settings.permissions = { ...permissions, allow };
  await mkdir(directory, { recursive: true });
  await atomicWriteFile(file, Buffer.from(`${JSON.stringify(settings, null, 2)}\n`), {
    toolName: "settings",
    displayPath: file,
  });
  return file;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
