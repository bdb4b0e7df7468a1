import type { z } from "zod";
import { RequestError } from "./errors.js";
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

/** Validates a create-response body; the first problem is a 400 naming its `param` (`input[0].content`). */
export function parseCreateRequest(body: unknown): CreateResponseRequest {
  return parseBody(CreateResponseRequest, body);
}

/** Validates a body with `schema`; the first problem is a 400 naming its `param`. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const { issue, path } = first ? deepest(first, []) : { issue: undefined, path: [] };
  const param = paramOf(path);
  const message = issue ? `Invalid ${param ?? "body"}: ${issue.message}` : "Invalid request body.";
  throw new RequestError(
    400,
    message,
    issue?.code === "invalid_type" && issue.input === undefined ? "missing_required_parameter" : "invalid_value",
    param,
    result.error,
  );
}

/**
 * Where a union's failure really is: the branch whose problem lies deepest (an `input` array
 * whose item's content part has an unknown type is `input[0].content[0].type`, not `input`).
 */
function deepest(
  issue: z.core.$ZodIssue,
  prefix: readonly PropertyKey[],
): { issue: z.core.$ZodIssue; path: PropertyKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return { issue, path };
  let best: { issue: z.core.$ZodIssue; path: PropertyKey[] } = { issue, path };
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first) continue;
    const candidate = deepest(first, path);
    if (candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}

function paramOf(path: readonly PropertyKey[]): string | null {
  if (path.length === 0) return null;
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("");
}
