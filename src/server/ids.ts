import { randomUUID } from "node:crypto";

/** A new id in OpenAI's shape: `resp_…`, `msg_…`, `conv_…` and a UUID's hex. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}
