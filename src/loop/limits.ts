import type { CostTracker } from "../model/index.js";
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

/**
 * What is left of a run's budgets at a moment (`Query.budget`). The spend counted is what the
 * limits count: the run's model calls, its subagents' and its compactions'. A limit that is
 * not set has no `remaining` (undefined); a spent one has 0 left.
 */
export interface RunBudget {
  /** `maxBudgetUsd`, when set. */
  readonly maxBudgetUsd: number | undefined;
  /** Dollars spent so far (models without a price count 0: see the result's `unpriced_models`). */
  readonly spentUsd: number;
  /** Dollars left before `maxBudgetUsd` ends the run (0 once spent); undefined without one. */
  readonly remainingUsd: number | undefined;
  /** `maxBudgetTokens`, when set. */
  readonly maxBudgetTokens: number | undefined;
  /** Tokens used so far: input, cache and output. */
  readonly usedTokens: number;
  /** Tokens left before `maxBudgetTokens` ends the run (0 once used); undefined without one. */
  readonly remainingTokens: number | undefined;
}

/** The budget's state for these limits and costs (none yet: nothing spent). */
export function runBudget(
  limits: { readonly maxBudgetUsd?: number | undefined; readonly maxBudgetTokens?: number | undefined },
  costs: CostTracker | undefined,
): RunBudget {
  const { maxBudgetUsd, maxBudgetTokens } = limits;
  const spent = costs?.totalCost;
  const usedTokens = costs?.totalTokens ?? 0;
  return {
    maxBudgetUsd,
    spentUsd: spent?.toNumber() ?? 0,
    // Subtracted exactly (decimal), so what is left plus what was spent is the budget.
    remainingUsd:
      maxBudgetUsd === undefined
        ? undefined
        : spent === undefined
          ? maxBudgetUsd
          : Math.max(0, spent.negated().plus(maxBudgetUsd).toNumber()),
    maxBudgetTokens,
    usedTokens,
    remainingTokens: maxBudgetTokens === undefined ? undefined : Math.max(0, maxBudgetTokens - usedTokens),
  };
}
