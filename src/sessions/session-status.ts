import { z } from "zod";
import type { SDKMessage } from "../protocol/index.js";

/**
 * What a session is doing, for a UI to show (OpenCode's session status): `idle` between runs,
 * `busy` while a run works, `retry` while it waits to send a failed model request again — with
 * the attempt, the error, and when the next try goes out (ms since the epoch).
 */
export const SessionStatus = z.discriminatedUnion("type", [
  z.object({ type: z.literal("idle") }),
  z.object({ type: z.literal("busy") }),
  z.object({ type: z.literal("retry"), attempt: z.number().int(), message: z.string(), next: z.number() }),
]);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const IDLE: SessionStatus = Object.freeze({ type: "idle" });
const BUSY: SessionStatus = Object.freeze({ type: "busy" });

/**
 * The status after `message` of the session's stream, received at `now`: a `result` ends the
 * run (idle), an `api_retry` waits (retry), anything else is the run at work (busy).
 */
export function nextSessionStatus(status: SessionStatus, message: SDKMessage, now: number): SessionStatus {
  if (message.type === "result") return IDLE;
  if (message.type === "system" && message.subtype === "api_retry")
    return {
      type: "retry",
      attempt: message.attempt,
      message: message.error,
      // The message's own time when it has one: the store and a live listener read it at different moments.
      next: message.retry_at ?? now + message.retry_delay_ms,
    };
  return status.type === "busy" ? status : BUSY;
}

/** Whether two statuses say the same (a UI is told only of changes). */
export function sameStatus(a: SessionStatus, b: SessionStatus): boolean {
  if (a.type !== b.type) return false;
  return a.type !== "retry" || (b.type === "retry" && a.attempt === b.attempt && a.next === b.next);
}
