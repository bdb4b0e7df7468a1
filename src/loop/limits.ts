import type { LoopConfig, LoopState, NextStep } from "./loop-state.js";

/** Limits checked before every model call: abort, budget, turns. */
export function checkLimits(config: LoopConfig, state: LoopState): NextStep {
  if (config.signal.aborted) return { next: "stop", reason: "interrupted", errors: ["The run was interrupted."] };
  const budget = checkBudget(config, state);
  if (budget.next === "stop") return budget;
  if (state.turns >= config.maxTurns) {
    return {
      next: "stop",
      reason: "max_turns",
      errors: [`Reached the maximum of ${config.maxTurns} turns.`],
    };
  }
  return { next: "continue" };
}

export function checkBudget(config: LoopConfig, state: LoopState): NextStep {
  if (config.maxBudgetUsd === undefined || !state.costs.totalCost.greaterThanOrEqualTo(config.maxBudgetUsd)) {
    return { next: "continue" };
  }
  return {
    next: "stop",
    reason: "max_budget",
    errors: [`Reached the budget of $${config.maxBudgetUsd} (spent $${state.costs.totalCostUsd}).`],
  };
}
