import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { findTrustedFolder, type IgnoredProjectSettings, realOrResolved } from "../settings/index.js";
import { type InvalidSkill, isInvalidSkill, parseSkillFile, type Skill, type SkillSource } from "./skill-file.js";

export interface SkillSources {
  cwd: string;
  home: string;
  /** The settings scopes read (`settingSources`): `user` reads the home folder's skills, `project` the cwd's. */
  scopes: ReadonlyArray<"user" | "project" | "local">;
  /** Leave out the project's skills unless the person trusted the folder (`gyre trust`); they are listed in `ignored`. */
  requireTrust?: boolean;
  /** Skills folders of plugins: each skill is named `plugin:skill`. */
  plugins?: ReadonlyArray<{ plugin: string; folder: string }>;
}

export interface DiscoveredSkills {
  /** Every skill found, by name; on a clash the one of higher precedence. */
  skills: Skill[];
  /** `SKILL.md` files that are not valid skills: reported, never fatal. */
  invalid: InvalidSkill[];
  /** The project's skills a run in an untrusted folder leaves out (`ignored_settings`). */
  ignored?: IgnoredProjectSettings;
}

/**
 * Finds the skills of a run, as Claude Code does: `<folder>/skills/<name>/SKILL.md` in the
 * project's `.claude` and `.gyre` folders and the user's (`~/.claude`, `~/.gyre`), and the
 * plugins'. On a name clash the user's skill wins over the project's (Claude Code's order:
 * personal before project), and at one level a `.gyre` skill over its `.claude` twin;
 * plugin skills are namespaced and never clash.
 */
export async function discoverSkills(sources: SkillSources): Promise<DiscoveredSkills> {
  const home = path.resolve(sources.home);
  const cwd = path.resolve(sources.cwd);
  const folders = (root: string) => [".gyre", ".claude"].map((dir) => path.join(root, dir, "skills"));
  let ignored: IgnoredProjectSettings | undefined;
  const levels: Array<{ source: SkillSource; folders: string[] }> = [];
  if (sources.scopes.includes("user")) levels.push({ source: "user", folders: folders(home) });
  if (sources.scopes.includes("project") && cwd !== home) {
    if (sources.requireTrust === true && !(await findTrustedFolder(cwd))) {
      const files = (await Promise.all(folders(cwd).map(skillFiles))).flat();
      if (files.length > 0)
        ignored = {
          folder: await realOrResolved(cwd),
          files: files.map((file) => ({ path: file, ignored: ["skill"] })),
        };
    } else levels.push({ source: "project", folders: folders(cwd) });
  }
  const byName = new Map<string, Skill>();
  const invalid: InvalidSkill[] = [];
  const add = (found: Skill | InvalidSkill) => {
    if (isInvalidSkill(found)) invalid.push(found);
    else if (!byName.has(found.name)) byName.set(found.name, found);
  };
  for (const level of levels)
    for (const folder of level.folders)
      for (const file of await skillFiles(folder)) add(await readSkill(file, level.source));
  for (const plugin of sources.plugins ?? [])
    for (const file of await skillFiles(plugin.folder)) {
      const found = await readSkill(file, "plugin");
      add(isInvalidSkill(found) ? found : { ...found, name: `${plugin.plugin}:${found.name}` });
    }
  return { skills: [...byName.values()], invalid, ...(ignored && { ignored }) };
}

async function readSkill(file: string, source: SkillSource): Promise<Skill | InvalidSkill> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return { path: file, error: `${file} cannot be read: ${(error as Error).message}` };
  }
  // The YAML parser is loaded with the first skill: most runs have none.
  const { parse } = await import("yaml");
  return parseSkillFile(text, file, source, parse);
}

/** The `SKILL.md` of each folder in `folder`, sorted; none when the folder does not exist. */
async function skillFiles(folder: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  const dirs = entries.filter((entry) => entry.isDirectory() || entry.isSymbolicLink()).map((entry) => entry.name);
  const files = await Promise.all(
    dirs.sort().map(async (dir) => {
      const file = path.join(folder, dir, "SKILL.md");
      const found = await stat(file).catch(() => undefined);
      return found?.isFile() ? [file] : [];
    }),
  );
  return files.flat();
}
