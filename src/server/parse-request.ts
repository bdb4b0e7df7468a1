import type { z } from "zod";
import { RequestError } from "./errors.js";
import { PARSE_OPTIONS, refusalOf } from "./request-problem.js";
import { CreateResponseRequest } from "./request-schema.js";

/** A request's body as JSON; one that is not JSON is a 400. */
export async function jsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    throw new RequestError(400, "The request body is not valid JSON.", "invalid_json", null, error);
  }
}

/**
 * Validates a create-response body; the first problem is a 400 naming its `param`
 * (`input[0].content`, `tools[0].type`, an unknown `frobnicate`).
 */
export function parseCreateRequest(body: unknown): CreateResponseRequest {
  return parseBody(CreateResponseRequest, body);
}

/** Validates a body with `schema`; the first problem is a 400 naming its `param`, in the server's words. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body, PARSE_OPTIONS);
  if (result.success) return result.data;
  throw refusalOf(result.error);
}
