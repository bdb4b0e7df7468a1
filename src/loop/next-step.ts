import type { PendingToolCall, TerminalReason } from "../protocol/index.js";
import type { RunEnding } from "./result.js";

/**
 * What the loop does after a step: go on, stop for a reason, or pause until the caller
 * answers pending tool calls. (The subagents work adds `handoff` here.)
 */
export type NextStep =
  | { next: "continue" }
  | ({ next: "stop"; reason: TerminalReason } & RunEnding)
  | { next: "pause"; pending: PendingToolCall[] };

export const CONTINUE: NextStep = { next: "continue" };

export function stop(reason: TerminalReason, ending: RunEnding = {}): NextStep {
  return { next: "stop", reason, ...ending };
}

export function interrupted(): NextStep {
  return stop("interrupted", { errors: ["The run was interrupted."] });
}
