import path from "node:path";

/** Where a skill was found: the user's folders, the project's, or a plugin. */
export type SkillSource = "user" | "project" | "plugin";

/**
 * An Agent Skill: a folder holding `SKILL.md`, whose YAML front matter names and describes it.
 * Only `name` and `description` reach the model up front; the body is read when the model
 * calls the Skill tool.
 */
export interface Skill {
  /** The name the model calls it by: front matter `name` (else the folder's), `plugin:name` for a plugin's. */
  name: string;
  description: string;
  /** The skill's folder (absolute): its scripts and files are read from here. */
  folder: string;
  /** Its `SKILL.md`. */
  file: string;
  source: SkillSource;
  /** `allowed-tools`: permission rules granted while the skill is in use (`Bash(git:*)`, `Read`). */
  allowedTools?: string[];
  license?: string;
  /** `metadata` and any other front matter key the format defines, as written. */
  metadata?: Record<string, unknown>;
}

/** A `SKILL.md` that could not be read as a skill, and why. */
export interface InvalidSkill {
  path: string;
  error: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** The Agent Skills format's names: lowercase words joined by single hyphens, at most 64 characters. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_DESCRIPTION = 1024;

/**
 * Reads one `SKILL.md` as the Agent Skills format defines it: front matter with `name`
 * (optional here, as in Claude Code: the folder's name stands in) and `description`
 * (required, at most 1,024 characters), optional `allowed-tools` (a list, or a string of
 * names separated by commas or spaces), `license` and `metadata`. Returns why it is not a
 * skill instead of throwing: one bad file must not stop a run.
 */
export function parseSkillFile(
  text: string,
  file: string,
  source: SkillSource,
  parseYaml: (yaml: string) => unknown,
): Skill | InvalidSkill {
  const fail = (why: string): InvalidSkill => ({ path: file, error: `${file} ${why}` });
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ""));
  if (!match) return fail("has no front matter: it must start with a `---` block holding name and description.");
  let fields: unknown;
  try {
    fields = parseYaml(match[1] ?? "");
  } catch (error) {
    return fail(`has front matter that is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields))
    return fail("has front matter that is not a set of `key: value` fields.");
  const record = fields as Record<string, unknown>;
  const folder = path.dirname(file);
  const name = record.name ?? path.basename(folder);
  if (typeof name !== "string" || name.length > 64 || !SKILL_NAME.test(name))
    return fail("has a `name` that is not lowercase letters, digits and single hyphens (at most 64 characters).");
  if (typeof record.description !== "string" || record.description.trim() === "")
    return fail("needs a `description`: the model reads it to choose the skill.");
  if (record.description.length > MAX_DESCRIPTION)
    return fail(`has a \`description\` longer than ${MAX_DESCRIPTION} characters.`);
  const allowed = toolList(record["allowed-tools"]);
  if (allowed === null) return fail("has an `allowed-tools` that is neither a list nor a string of tool names.");
  if (record.license !== undefined && typeof record.license !== "string")
    return fail("has a `license` that is not a string.");
  const { name: _name, description, "allowed-tools": _allowed, license, ...rest } = record;
  return {
    name,
    description: description.trim(),
    folder,
    file,
    source,
    ...(allowed && allowed.length > 0 && { allowedTools: allowed }),
    ...(typeof license === "string" && { license }),
    ...(Object.keys(rest).length > 0 && { metadata: rest }),
  };
}

/** The body of a `SKILL.md`: what follows its front matter. */
export function skillBody(text: string): string {
  const clean = text.replace(/^\uFEFF/, "");
  const match = FRONT_MATTER.exec(clean);
  return (match ? clean.slice(match[0].length) : clean).trim();
}

/**
 * `allowed-tools` as rules: a YAML list, or one string split at commas and spaces outside
 * parentheses (`Bash(git add:*) Read` is two rules). Undefined when absent, null when malformed.
 */
function toolList(value: unknown): string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.every((item) => typeof item === "string") ? value.map((s) => s.trim()) : null;
  if (typeof value !== "string") return null;
  const rules: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of value) {
    if (char === "(") depth += 1;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current.trim()) rules.push(current.trim());
      current = "";
    } else current += char;
  }
  if (current.trim()) rules.push(current.trim());
  return rules;
}

export function isInvalidSkill(value: Skill | InvalidSkill): value is InvalidSkill {
  return "error" in value;
}
