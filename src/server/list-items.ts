import { RequestError } from "./errors.js";
import type { StoredInputItem } from "./response-object.js";

/** A page of items (a response's input items, a conversation's items), as OpenAI lists them. */
export interface ItemList<T extends { id: string } = StoredInputItem> {
  object: "list";
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/**
 * Pages through input items as OpenAI does: `order` `desc` (default, newest first) or `asc`,
 * `limit` 1-100 (default 20), and the cursors `after` / `before` (item ids).
 */
export function listInputItems<T extends { id: string }>(
  items: readonly T[],
  query: Record<string, string>,
): ItemList<T> {
  const order = query.order ?? "desc";
  if (order !== "asc" && order !== "desc")
    throw new RequestError(400, "order must be asc or desc.", "invalid_value", "order");
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new RequestError(400, "limit must be an integer from 1 to 100.", "invalid_value", "limit");
  let ordered = order === "asc" ? [...items] : [...items].reverse();
  if (query.after !== undefined) ordered = ordered.slice(cursor(ordered, query.after, "after") + 1);
  if (query.before !== undefined) ordered = ordered.slice(0, cursor(ordered, query.before, "before"));
  const data = ordered.slice(0, limit);
  return {
    object: "list",
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: ordered.length > limit,
  };
}

function cursor(items: readonly { id: string }[], id: string, param: string): number {
  const index = items.findIndex((item) => item.id === id);
  if (index < 0) throw new RequestError(400, `No item with id '${id}' in this list.`, "invalid_value", param);
  return index;
}
