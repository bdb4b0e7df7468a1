/** What the loop section says: the run's tools and the limits it stops at. */
export interface LoopSectionInput {
  /** Names of the tools offered to the model. */
  tools: readonly string[];
  maxTurns?: number | undefined;
  maxBudgetUsd?: number | undefined;
  maxBudgetTokens?: number | undefined;
}

/**
 * The preset's tools and loop-control section: how the run goes on and ends, which tools it
 * has, and the limits that stop it, so the model can pace its work. It holds only what is fixed
 * for the run (nothing that changes per call), so the cached start of the prompt stays the same.
 */
export function loopSection(input: LoopSectionInput): string {
  const limits: string[] = [];
  if (input.maxTurns !== undefined && Number.isFinite(input.maxTurns)) limits.push(`${input.maxTurns} model calls`);
  if (input.maxBudgetUsd !== undefined) limits.push(`$${input.maxBudgetUsd} of model spend`);
  if (input.maxBudgetTokens !== undefined) limits.push(`${input.maxBudgetTokens} tokens`);
  const lines = [
    "You work in a loop: each tool call you make runs (when permitted) and its result comes back to you; " +
      "several independent calls in one answer run together. The run ends when you answer without calling a tool.",
    input.tools.length > 0
      ? `Tools of this run (their schemas come with each request): ${input.tools.join(", ")}.`
      : "This run has no tools: answer from what you know and what you are given.",
  ];
  if (limits.length > 0) lines.push(`The run stops at ${limits.join(" or ")}: plan your work to finish within that.`);
  return `<loop>\n${lines.join("\n")}\n</loop>`;
}
