import type { PendingToolCall, TerminalReason } from "../protocol/index.js";
import type { RunEnding } from "./result.js";

/**
 * What the loop does after a step: go on, stop for a reason, pause until the caller answers
 * pending tool calls, or go on as another agent (a handoff: `state.activeAgent` is the new one).
 */
export type NextStep =
  | { next: "continue" }
  | ({ next: "stop"; reason: TerminalReason } & RunEnding)
  | { next: "pause"; pending: PendingToolCall[] }
  | { next: "handoff"; agent: string };

export const CONTINUE: NextStep = { next: "continue" };

export function stop(reason: TerminalReason, ending: RunEnding = {}): NextStep {
  return { next: "stop", reason, ...ending };
}

export function interrupted(): NextStep {
  return stop("interrupted", { errors: ["The run was interrupted."] });
}
