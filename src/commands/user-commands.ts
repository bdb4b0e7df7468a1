import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../errors/index.js";

/** A slash command written by the person: a Markdown file whose body is the prompt it sends. */
export interface UserCommand {
  /** As typed after `/`: the file name, behind its subfolders (`frontend:component`). */
  name: string;
  description: string;
  /** What the arguments are, shown in /help and completion (`argument-hint`). */
  argumentHint: string | undefined;
  /** `model` of the front matter, as written. */
  model: string | undefined;
  /** `allowed-tools` of the front matter, as written. */
  allowedTools: string[];
  body: string;
  file: string;
  /** `user` (home folder), `project` (cwd) or `plugin`. */
  scope: "user" | "project" | "plugin";
}

export interface UserCommandSources {
  cwd: string;
  home: string;
  /** Whose folders are read: the user's (home folder), the project's (cwd). Default both. */
  scopes?: ReadonlyArray<"user" | "project">;
}

/** The result of loading: the commands by name, and what was wrong with the files that were skipped. */
export interface LoadedUserCommands {
  commands: Map<string, UserCommand>;
  problems: string[];
}

/**
 * Commands from `.claude/commands` and `.gyre/commands`, the user's (home folder) first, then
 * the project's: a later file of the same name wins (`.gyre` over `.claude`, project over
 * user), as Claude Code reads them. A file that cannot be read or parsed is skipped and named
 * in `problems`, so one bad file never hides the others.
 */
export async function loadUserCommands(sources: UserCommandSources): Promise<LoadedUserCommands> {
  const roots: Array<{ folder: string; scope: UserCommand["scope"] }> = [];
  const add = (root: string, scope: UserCommand["scope"]) => {
    for (const dir of [".claude", ".gyre"]) roots.push({ folder: path.join(root, dir, "commands"), scope });
  };
  const scopes = sources.scopes ?? ["user", "project"];
  if (scopes.includes("user")) add(sources.home, "user");
  if (scopes.includes("project") && path.resolve(sources.cwd) !== path.resolve(sources.home))
    add(sources.cwd, "project");
  const commands = new Map<string, UserCommand>();
  const problems: string[] = [];
  for (const { folder, scope } of roots) {
    for (const file of await markdownFiles(folder, problems)) {
      const name = commandName(folder, file);
      if (!name) {
        problems.push(`${file}: a command name is letters, digits, -, _ and . (subfolders add \`folder:\`)`);
        continue;
      }
      try {
        const { parse } = await import("yaml");
        commands.set(name, parseUserCommand(await readFile(file, "utf8"), { name, file, scope }, parse));
      } catch (error) {
        problems.push(`${file}: ${errorMessage(error)}`);
      }
    }
  }
  return { commands, problems };
}

/**
 * The commands of plugins (`kit:hello`), read as the person's own are; a file that cannot be
 * read or parsed is skipped and named in `problems`.
 */
export async function loadPluginCommands(
  plugins: ReadonlyArray<{ commands: ReadonlyArray<{ name: string; file: string }> }>,
): Promise<LoadedUserCommands> {
  const commands = new Map<string, UserCommand>();
  const problems: string[] = [];
  for (const { name, file } of plugins.flatMap((plugin) => plugin.commands)) {
    try {
      const { parse } = await import("yaml");
      commands.set(name, parseUserCommand(await readFile(file, "utf8"), { name, file, scope: "plugin" }, parse));
    } catch (error) {
      problems.push(`${file}: ${errorMessage(error)}`);
    }
  }
  return { commands, problems };
}

/** `frontend/component.md` under the commands folder is `frontend:component`; undefined when not a valid name. */
export function commandName(folder: string, file: string): string | undefined {
  const parts = path.relative(folder, file).slice(0, -".md".length).split(path.sep);
  if (!parts.every((part) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(part))) return undefined;
  return parts.join(":");
}

/** Markdown files under `folder`, subfolders included, sorted; a missing folder has none. */
async function markdownFiles(folder: string, problems: string[]): Promise<string[]> {
  try {
    const entries = await readdir(folder, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") problems.push(`${folder}: ${errorMessage(error)}`);
    return [];
  }
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/**
 * One command file in Claude Code's format: optional YAML front matter (`description`,
 * `argument-hint`, `model`, `allowed-tools` as a list or a comma-separated string), then the
 * prompt. Without a description, the body's first line stands for it. Throws on front matter
 * that is not YAML key/value fields.
 */
export function parseUserCommand(
  text: string,
  where: Pick<UserCommand, "name" | "file" | "scope">,
  parseYaml: (yaml: string) => unknown,
): UserCommand {
  const source = text.replace(/^\uFEFF/, "");
  const match = FRONT_MATTER.exec(source);
  const yaml = match?.[1] ?? "";
  const raw = rawFields(yaml);
  let fields: Record<string, unknown> = raw;
  if (match) {
    let parsed: unknown = raw;
    try {
      parsed = parseYaml(yaml);
    } catch {
      // Command files often hold `argument-hint: [file] [focus]`, which is not YAML; Claude
      // Code reads them anyway, so the fields are then read line by line.
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed))
        throw new Error("the front matter is not a set of `key: value` fields");
      fields = parsed as Record<string, unknown>;
    }
  }
  const body = (match ? source.slice(match[0].length) : source).trim();
  const firstLine = body.split("\n", 1)[0]?.trim() ?? "";
  return {
    ...where,
    description: stringField(fields.description) ?? (firstLine.slice(0, 80) || "(no description)"),
    // As written: YAML would read `[file]` as a list and lose its brackets.
    argumentHint: stringField(raw["argument-hint"]),
    model: stringField(fields.model),
    allowedTools: toolList(fields["allowed-tools"]),
    body,
  };
}

/** `key: value` lines of front matter, values as written (one pair of surrounding quotes dropped). */
function rawFields(yaml: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of yaml.split(/\r?\n/)) {
    const pair = /^([\w-]+):[ \t]*(.*?)\s*$/.exec(line);
    if (pair?.[1]) fields[pair[1]] = (pair[2] ?? "").replace(/^(["'])(.*)\1$/, "$2");
  }
  return fields;
}

function stringField(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (Array.isArray(value)) return value.map(String).join(" ");
  return undefined;
}

function toolList(value: unknown): string[] {
  if (typeof value === "string")
    return value
      .split(",")
      .map((tool) => tool.trim())
      .filter(Boolean);
  if (Array.isArray(value)) return value.filter((tool): tool is string => typeof tool === "string");
  return [];
}

/** `/name` and what follows it, as typed: the name and the arguments; undefined for any other text (`/usr/bin is…` too). */
export function typedCommand(prompt: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9_][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  return match?.[1] ? { name: match[1], args: (match[2] ?? "").trim() } : undefined;
}

/**
 * The prompt a command sends: `$ARGUMENTS` is everything after the name, `$1`, `$2`, … the
 * arguments split at spaces (a "quoted phrase" is one argument), a missing one empty. A body
 * that uses neither gets the arguments appended on a line of their own, so they are never lost.
 */
export function expandCommand(body: string, args: string): string {
  const positional = splitArguments(args);
  const uses = /\$ARGUMENTS|\$\d+/.test(body);
  // One pass, so arguments that hold `$1` or `$ARGUMENTS` are put in as they are.
  const expanded = body.replace(/\$ARGUMENTS|\$(\d+)/g, (_, index: string | undefined) =>
    index === undefined ? args : (positional[Number(index) - 1] ?? ""),
  );
  return uses || args === "" ? expanded : `${expanded}\n\n${args}`;
}

function splitArguments(args: string): string[] {
  const found: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) found.push(match[1] ?? match[2] ?? match[3] ?? "");
  return found;
}
