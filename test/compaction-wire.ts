import type { MockFormat } from "../src/testing/index.js";

type Item = Record<string, unknown>;

function items(value: unknown): Item[] {
  return Array.isArray(value) ? (value as Item[]) : [];
}

/**
 * What a provider would reject in a request body's conversation: roles that do not
 * alternate (Anthropic), tool calls without results and results without calls (all formats).
 */
export function wireProblems(format: MockFormat, body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  if (format === "anthropic") {
    const messages = items(body.messages);
    if (messages[0]?.role !== "user") problems.push("first message is not from the user");
    messages.forEach((message, index) => {
      if (index > 0 && messages[index - 1]?.role === message.role) problems.push(`roles repeat at ${index}`);
      for (const block of items(message.content)) {
        if (block.type === "tool_use") calls.add(String(block.id));
        if (block.type === "tool_result") {
          const previous = items(messages[index - 1]?.content);
          if (!previous.some((b) => b.type === "tool_use" && b.id === block.tool_use_id))
            problems.push(`orphan tool_result ${String(block.tool_use_id)}`);
          answered.add(String(block.tool_use_id));
        }
      }
    });
  } else if (format === "openai-responses") {
    for (const item of items(body.input)) {
      if (item.type === "function_call") calls.add(String(item.call_id));
      if (item.type === "function_call_output") {
        if (!calls.has(String(item.call_id))) problems.push(`orphan output ${String(item.call_id)}`);
        answered.add(String(item.call_id));
      }
    }
  } else {
    for (const message of items(body.messages)) {
      for (const call of items(message.tool_calls)) calls.add(String(call.id));
      if (message.role === "tool") {
        if (!calls.has(String(message.tool_call_id)))
          problems.push(`orphan tool message ${String(message.tool_call_id)}`);
        answered.add(String(message.tool_call_id));
      }
    }
  }
  for (const id of calls) if (!answered.has(id)) problems.push(`unanswered call ${id}`);
  return problems;
}
