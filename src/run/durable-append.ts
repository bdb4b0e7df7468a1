import { isGyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { SessionStore } from "../sessions/index.js";

/** How long a run waits at a step for its store to come back before the step fails. */
const WAIT_FOR_STORE_MS = 120_000;
const FIRST_WAIT_MS = 200;
const LONGEST_WAIT_MS = 5_000;

/** Errors of a connection, not of the request: the store may answer again (Node's, and PostgreSQL's classes 08 and 57P0). */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"]);
const CONNECTION_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection error|server closed the connection/i;

/** Whether a store's error says it cannot be reached just now (a connection lost), rather than refusing. */
export function storeOutOfReach(error: unknown): boolean {
  for (let cause = error; cause instanceof Error || (typeof cause === "object" && cause !== null);) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (CONNECTION_CODES.has(code) || /^(08|57P0)/.test(code))) return true;
    if (typeof message === "string" && CONNECTION_MESSAGES.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Commits a step's message, waiting for a store out of reach (PostgreSQL restarting, a network
 * cut) to come back: the run pauses at this step and goes on, and nothing it did is lost. A
 * message whose commit went through before the connection broke is not stored twice. Errors
 * that are not about reaching the store, and a store still away after two minutes, fail the step.
 */
export async function appendDurably(store: SessionStore, sessionId: string, message: SDKMessage): Promise<void> {
  const deadline = Date.now() + WAIT_FOR_STORE_MS;
  let wait = FIRST_WAIT_MS;
  for (let first = true; ; first = false) {
    try {
      if (!first && (await stored(store, sessionId, message))) return;
      await store.append(sessionId, message);
      return;
    } catch (error) {
      if (!storeOutOfReach(error) || Date.now() + wait > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, LONGEST_WAIT_MS);
  }
}

/** Whether the message is in the session already (its commit went through before the connection broke). */
async function stored(store: SessionStore, sessionId: string, message: SDKMessage): Promise<boolean> {
  if (!("uuid" in message) || typeof message.uuid !== "string") return false;
  try {
    await store.getSessionMessages(sessionId, { upTo: message.uuid });
    return true;
  } catch (error) {
    if (isGyreError(error) && error.code === "session_message_not_found") return false;
    throw error;
  }
}
