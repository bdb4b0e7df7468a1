import type { Skill } from "./skill-file.js";

/**
 * The skills a run offers, by the `skills` option as the Claude Agent SDK has it: omitted or
 * `"all"`, every skill found; a list, only those it names — by name (`pdf`), by the folder's
 * name, as `plugin:skill`, or by the part after a plugin's `:`. It filters what the model is
 * shown and may load; it is not a sandbox (the files stay readable).
 */
export function selectSkills(skills: readonly Skill[], option: readonly string[] | "all" | undefined): Skill[] {
  if (option === undefined || option === "all") return [...skills];
  const wanted = new Set(option.map((name) => name.trim().replace(/^\//, "")));
  return skills.filter((skill) => skillNames(skill).some((name) => wanted.has(name)));
}

/** The names a list may give a skill by. */
function skillNames(skill: Skill): string[] {
  const folder = skill.folder.split(/[\\/]/).at(-1) ?? "";
  const colon = skill.name.indexOf(":");
  const plugin = colon < 0 ? undefined : skill.name.slice(0, colon);
  const short = colon < 0 ? skill.name : skill.name.slice(colon + 1);
  return [skill.name, short, plugin ? `${plugin}:${folder}` : folder];
}
