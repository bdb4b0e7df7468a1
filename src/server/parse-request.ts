import { RequestError } from "./errors.js";
import { CreateResponseRequest } from "./request-schema.js";

/** Validates a create-response body; the first problem is a 400 naming its `param` (`input[0].content`). */
export function parseCreateRequest(body: unknown): CreateResponseRequest {
  const result = CreateResponseRequest.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue ? paramOf(issue.path) : null;
  const message = issue ? `Invalid ${param ?? "body"}: ${issue.message}` : "Invalid request body.";
  throw new RequestError(
    400,
    message,
    issue?.code === "invalid_type" && issue.input === undefined ? "missing_required_parameter" : "invalid_value",
    param,
    result.error,
  );
}

function paramOf(path: readonly PropertyKey[]): string | null {
  if (path.length === 0) return null;
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("");
}
