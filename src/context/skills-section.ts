/** A skill as the system prompt lists it: its name and what it is for. */
export interface SkillSummary {
  name: string;
  description: string;
}

/**
 * The skills section of the system prompt: each skill's name and description, nothing more
 * (a skill's instructions cost context only once the model loads them with the Skill tool).
 * Undefined when there are none.
 */
export function skillsSection(skills: readonly SkillSummary[]): string | undefined {
  if (skills.length === 0) return undefined;
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}`);
  return [
    "<skills>",
    "Skills add instructions and files for particular tasks. When a task matches a skill's description, call the Skill tool with its name first, then follow what it returns.",
    ...lines,
    "</skills>",
  ].join("\n");
}
