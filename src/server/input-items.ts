import { RequestError } from "./errors.js";
import type { CreateResponseRequest, InputItem } from "./request-schema.js";
import type { OutputItem, StoredInputItem } from "./response-object.js";
import type { ResponseStore, StoredResponse } from "./response-store.js";

const PREFIXES: Record<string, string> = {
  message: "msg",
  function_call: "fc",
  function_call_output: "fco",
  reasoning: "rs",
  compaction: "cmp",
  custom_tool_call: "ctc",
  custom_tool_call_output: "ctco",
  mcp_call: "mcp",
  mcp_list_tools: "mcpl",
  mcp_approval_response: "mcpa",
};

/**
 * The request's input as items with ids: a string is one user message; references are resolved
 * in `earlier`. `param` names the items in errors (`input`, or a conversation's `items`).
 */
export function inputItems(
  request: Pick<CreateResponseRequest, "input">,
  earlier: readonly StoredInputItem[],
  newId: (prefix: string) => string,
  param = "input",
): StoredInputItem[] {
  const input: InputItem[] =
    typeof request.input === "string"
      ? [{ type: "message", role: "user", content: request.input }]
      : (request.input ?? []);
  return input.map((item, index) => {
    if (item.type === "item_reference") {
      const found = earlier.find((candidate) => candidate.id === item.id);
      if (!found)
        throw new RequestError(
          400,
          `Item ${item.id} is not in this conversation.`,
          "invalid_input",
          `${param}[${index}].id`,
        );
      return found;
    }
    const prefix = item.type ? (PREFIXES[item.type] ?? "item") : "msg";
    return { ...item, type: item.type ?? "message", id: item.id ?? newId(prefix) } as StoredInputItem;
  });
}

/** An output item as the next request's input sees it. */
export function asInputItem(item: OutputItem): StoredInputItem {
  if (item.type === "message")
    return {
      type: "message",
      id: item.id,
      role: "assistant",
      content: item.content.map(({ type, text }) => ({ type, text })),
      status: item.status,
    };
  if (item.type !== "reasoning") return { ...item } as StoredInputItem;
  return { type: "reasoning", id: item.id, summary: item.summary, content: item.content, status: item.status };
}

/**
 * The items of a chain up to and including `last`: each response's input items and output,
 * oldest first. A response of the chain that is gone (deleted) ends it with `previous_response_not_found`.
 */
export async function chainItems(store: ResponseStore, last: StoredResponse): Promise<StoredInputItem[]> {
  const parts: StoredInputItem[][] = [];
  let current: StoredResponse | undefined = last;
  while (current) {
    parts.push([...current.inputItems, ...current.response.output.map(asInputItem)]);
    const previousId: string | null = current.response.previous_response_id;
    if (previousId === null) break;
    const previous = await store.get(previousId);
    if (!previous) throw previousNotFound(previousId);
    current = previous;
  }
  return parts.reverse().flat();
}

export function previousNotFound(id: string): RequestError {
  return new RequestError(
    400,
    `Previous response with id '${id}' not found.`,
    "previous_response_not_found",
    "previous_response_id",
  );
}
