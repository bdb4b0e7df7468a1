import { errorMessage, GyreError } from "../errors/index.js";

/** Parses JSON read back from storage; unreadable data is a `session_store_error` naming where it was. */
export function parseStored<T>(text: unknown, where: string): T {
  if (typeof text !== "string") {
    throw new GyreError("session_store_error", `Unreadable data in ${where}: expected JSON text`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new GyreError("session_store_error", `Unreadable data in ${where}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
