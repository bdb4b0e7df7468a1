import { CONTINUE, interrupted, type NextStep, stop } from "./next-step.js";
import type { RunContext } from "./run-context.js";
import type { RunState } from "./run-state.js";

/** Limits checked before every model call: abort, budget, turns. */
export function checkLimits(context: RunContext, state: RunState): NextStep {
  if (context.signal.aborted) return interrupted(context.signal);
  const budget = checkBudget(context, state);
  if (budget.next !== "continue") return budget;
  const { maxTurns } = context.limits;
  if (state.turns >= maxTurns) return stop("max_turns", { errors: [`Reached the maximum of ${maxTurns} turns.`] });
  return CONTINUE;
}

export function checkBudget(context: RunContext, state: RunState): NextStep {
  const { maxBudgetUsd, maxBudgetTokens } = context.limits;
  const costs = context.budgetCosts ?? state.costs;
  if (maxBudgetUsd !== undefined && costs.totalCost.greaterThanOrEqualTo(maxBudgetUsd)) {
    return stop("max_budget", {
      errors: [`Reached the budget of $${maxBudgetUsd} (spent $${costs.totalCostUsd}).`],
    });
  }
  if (maxBudgetTokens !== undefined && costs.totalTokens >= maxBudgetTokens) {
    return stop("max_budget", {
      errors: [`Reached the budget of ${maxBudgetTokens} tokens (used ${costs.totalTokens}).`],
    });
  }
  return CONTINUE;
}
