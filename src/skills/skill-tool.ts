import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool, type Tool, type ToolResult } from "../tools/index.js";
import { skillBody, type Skill } from "./skill-file.js";

export const SKILL_TOOL_NAME = "Skill";

/** The Skill tool's input, as Claude Code's: the skill's name, and what the user gave it. */
export const SkillInput = z.object({
  skill: z.string().describe('The skill\'s name, as listed (e.g. "pdf", or "my-plugin:pdf" for a plugin\'s skill)'),
  args: z.string().optional().describe("Optional arguments for the skill"),
});
export type SkillInput = z.infer<typeof SkillInput>;

/** What a call returns besides its text (`tool_use_result`), in Claude Code's shape. */
export interface SkillOutput {
  success: boolean;
  commandName: string;
  allowedTools?: string[];
  /** Gyre: the skill's folder, where its files and scripts are. */
  baseDirectory?: string;
}

const DESCRIPTION = `Load a skill: its instructions, and the folder holding its files and scripts.

The skills you can use are listed with what each is for. When a task matches one, call this tool with its name before you do the task, then follow the instructions it returns. Files and scripts the instructions mention are in the skill's folder: read them with Read and run them with Bash. Do not call it for a skill that is already loaded in this conversation.`;

/**
 * The Skill tool: progressive disclosure. The system prompt lists each skill's name and
 * description; a call reads its `SKILL.md` (fresh, so an edit shows) and returns the body with
 * the skill's folder. The skill's `allowed-tools` are granted for the rest of the run (an
 * `allow_tools` event the tool-call pipeline applies to the run's permissions).
 */
export function skillTool(skills: readonly Skill[], options: { listed?: boolean } = {}): Tool<SkillInput> {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  // A run whose system prompt is the caller's own has no skills section: the list goes here.
  const list = skills.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}`);
  return defineTool({
    name: SKILL_TOOL_NAME,
    description: options.listed ? `${DESCRIPTION}\n\nAvailable skills:\n${list.join("\n")}` : DESCRIPTION,
    inputSchema: SkillInput,
    sideEffect: "none",
    idempotent: true,
    execute: async (input, context): Promise<ToolResult> => {
      const name = input.skill.trim().replace(/^\//, "");
      const skill = byName.get(name);
      if (!skill) {
        const known = [...byName.keys()].join(", ") || "(none)";
        return failed(name, `Error: Unknown skill "${name}". Skills available: ${known}.`);
      }
      let text: string;
      try {
        text = await loadSkill(skill, input.args);
      } catch (error) {
        return failed(name, `Error: The skill's file ${skill.file} cannot be read: ${(error as Error).message}`);
      }
      if (skill.allowedTools) context.emit({ type: "allow_tools", rules: skill.allowedTools });
      const data: SkillOutput = {
        success: true,
        commandName: skill.name,
        ...(skill.allowedTools && { allowedTools: skill.allowedTools }),
        baseDirectory: skill.folder,
      };
      return { content: text, data };
    },
  });
}

/**
 * What the model reads of a skill: where its files are, then its instructions (read from its
 * `SKILL.md` now) with the arguments. A subagent whose definition names the skill starts with it.
 */
export async function loadSkill(skill: Skill, args?: string): Promise<string> {
  return skillText(skill, skillBody(await readFile(skill.file, "utf8")), args);
}

function skillText(skill: Skill, body: string, args: string | undefined): string {
  const withArgs =
    args === undefined || args.trim() === ""
      ? body
      : body.includes("$ARGUMENTS")
        ? body.replaceAll("$ARGUMENTS", args)
        : `${body}\n\nARGUMENTS: ${args}`;
  return `Launching skill: ${skill.name}\n\nBase directory for this skill: ${skill.folder}\n\n${withArgs}`;
}

function failed(name: string, message: string): ToolResult {
  const data: SkillOutput = { success: false, commandName: name };
  return { content: message, isError: true, data };
}
