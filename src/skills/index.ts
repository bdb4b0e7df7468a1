export { type DiscoveredSkills, discoverSkills, type SkillSources } from "./discover.js";
export { selectSkills } from "./select.js";
export {
  type InvalidSkill,
  isInvalidSkill,
  parseSkillFile,
  type Skill,
  skillBody,
  type SkillSource,
} from "./skill-file.js";
export { loadSkill, SKILL_TOOL_NAME, SkillInput, type SkillOutput, skillTool } from "./skill-tool.js";
