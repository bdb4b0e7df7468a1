import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { Tool, ToolResult } from "../tool.js";

/** ExitPlanMode's input: the plan the model presents for approval (Markdown). */
export const ExitPlanModeInput = z.object({
  plan: z.string().trim().min(1, "plan must not be empty").describe("The plan to present to the user (Markdown)"),
});
export type ExitPlanModeInput = z.infer<typeof ExitPlanModeInput>;

/** ExitPlanMode's structured result (`tool_use_result`), as Claude Code's `ExitPlanModeOutput`. */
export interface ExitPlanModeOutput {
  /** The plan the user approved. */
  plan: string;
  /** Whether a subagent presented the plan (always false: the person approves the main run's). */
  isAgent: boolean;
}

const DESCRIPTION = `Use this tool when you are in plan mode and have finished planning: it presents your plan to the user for approval. On approval you leave plan mode and may carry the plan out; otherwise the user's feedback comes back as this tool's result and you stay in plan mode.

Use it only for tasks that need writing code or changing files, after you have researched what you need with read-only tools. Do not use it for research or questions about the code: answer those directly. Put the whole plan in \`plan\`, concise and in Markdown.`;

/** What the model is told once the user approves (Claude Code's wording). */
export const PLAN_APPROVED =
  "User has approved your plan. You can now start coding. Start with updating your todo list if applicable";

/**
 * ExitPlanMode (Claude Code compatible): in `plan` mode the model presents its plan. A person
 * answers it (`requiresUserInteraction`, through `canUseTool`, the interactive agent or a paused
 * run's approvals): allowing it leaves plan mode (`exitsPlanMode`: for the mode a `setMode`
 * update in the answer names, else `default`); denying it keeps the run in plan mode with the
 * denial's message — the user's feedback — as the result. Outside plan mode a call is refused.
 */
export function exitPlanModeTool(): Tool<ExitPlanModeInput> {
  const tool = defineTool({
    name: "ExitPlanMode",
    description: DESCRIPTION,
    inputSchema: ExitPlanModeInput,
    sideEffect: "none",
    execute: (input): ToolResult => {
      const data: ExitPlanModeOutput = { plan: input.plan, isAgent: false };
      return { content: PLAN_APPROVED, data };
    },
  });
  return { ...tool, requiresUserInteraction: true, exitsPlanMode: true };
}
