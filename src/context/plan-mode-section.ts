/**
 * What the model is told on every call while the run is in plan mode, placed last in the
 * system prompt (it changes only with the mode, so the start of the prompt stays cacheable).
 * Claude Code says the same in a reminder; without it a model learns of plan mode only from
 * its refused edits.
 */
export const PLAN_MODE_SECTION = `<system-reminder>
Plan mode is active: the user wants a plan before anything changes. Do not edit or write files, run commands that change anything, or make any other change to the system; tools that would are refused while planning. Explore with read-only tools (Read, Glob, Grep, WebFetch, WebSearch, read-only shell commands), ask the user with AskUserQuestion if something is unclear, and when the plan is ready present it by calling ExitPlanMode with the plan. The user approves it, and the run leaves plan mode, or tells you what to change.
</system-reminder>`;

/** `prompt` with the plan-mode section added when `mode` is "plan". */
export function withPlanMode(prompt: string, mode: string): string {
  if (mode !== "plan") return prompt;
  return prompt ? `${prompt}\n\n${PLAN_MODE_SECTION}` : PLAN_MODE_SECTION;
}
