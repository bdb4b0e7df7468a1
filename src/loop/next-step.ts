import type { PendingToolCall, TerminalReason } from "../protocol/index.js";
import { GyreError } from "../errors/index.js";
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

const INTERRUPTS = new WeakSet<object>();

/**
 * The abort reason `Query.interrupt()` fires the run's signal with. The loop ends a run whose
 * signal fired with it `interrupted`, and with any other reason (the caller's own abort) `aborted`.
 */
export function interruptReason(): GyreError {
  const reason = new GyreError("aborted", "Interrupted");
  INTERRUPTS.add(reason);
  return reason;
}

/** Whether an abort reason is {@link interruptReason}'s. */
export function isInterrupt(reason: unknown): boolean {
  return typeof reason === "object" && reason !== null && INTERRUPTS.has(reason);
}

/** How a run whose signal fired ends: `interrupted` by `interrupt()`, else `aborted`. */
export function interrupted(signal: AbortSignal): NextStep {
  return isInterrupt(signal.reason)
    ? stop("interrupted", { errors: ["The run was interrupted."] })
    : stop("aborted", { errors: ["The run was aborted."] });
}
