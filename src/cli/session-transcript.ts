import type { SDKMessage } from "../protocol/index.js";

/** How much of a tool result `gyre sessions show` prints without `--full`. */
export const PREVIEW_LINES = 10;
export const PREVIEW_CHARS = 1000;

/**
 * The transcript of a session as text: prompts (`> `), the assistant's text and tool calls
 * (`[Name] input`), each tool result under `← Name` (a preview of its first lines, or all
 * of it with `full`), and a line per handoff and per run result. `nested` holds lines to show
 * indented under a call, by its id (a subagent's transcript under its Agent call; any whose
 * call is missing come last). A subagent's messages stored inline (sessions from before
 * subagents had their own) are indented too.
 */
export function transcript(
  messages: readonly SDKMessage[],
  full: boolean,
  nested: ReadonlyMap<string, readonly string[]> = new Map(),
): string[] {
  const toolNames = new Map<string, string>();
  const lines: string[] = [];
  const shown = new Set<string>();
  for (const message of messages) {
    const own = messageLines(message, toolNames, full);
    const inline = "parent_tool_use_id" in message && message.parent_tool_use_id !== null;
    lines.push(...(inline ? own.map(indentLine) : own));
    if (message.type !== "assistant") continue;
    for (const block of message.message.content) {
      if (block.type !== "tool_use") continue;
      toolNames.set(block.id, block.name);
      const under = nested.get(block.id);
      if (under === undefined || shown.has(block.id)) continue;
      shown.add(block.id);
      lines.push(...under.map(indentLine));
    }
  }
  for (const [id, under] of nested) if (!shown.has(id)) lines.push(...under.map(indentLine));
  return lines;
}

function indentLine(line: string): string {
  return `    ${line}`;
}

function messageLines(message: SDKMessage, toolNames: ReadonlyMap<string, string>, full: boolean): string[] {
  switch (message.type) {
    case "user": {
      const content = message.message.content;
      if (typeof content === "string") return [`> ${content}`];
      return content.flatMap((block) => {
        if (block.type === "text") return [`> ${block.text}`];
        if (block.type !== "tool_result") return [];
        const name = toolNames.get(block.tool_use_id) ?? block.tool_use_id;
        const text =
          typeof block.content === "string"
            ? block.content
            : block.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
        return [`  ← ${name}${block.is_error ? " (error)" : ""}`, ...indent(full ? text : preview(text))];
      });
    }
    case "assistant":
      return message.message.content.flatMap((block) =>
        block.type === "text"
          ? [block.text]
          : block.type === "tool_use"
            ? [`  [${block.name}] ${JSON.stringify(block.input)}`]
            : [],
      );
    case "result":
      return [`-- ${message.subtype} (${message.num_turns} turns, ${costText(message)})`];
    case "system":
      return message.subtype === "handoff" ? [`-- handoff: ${message.from} → ${message.to} (${message.model})`] : [];
    default:
      return [];
  }
}

/** The run's cost, saying so when some of its models had no price (their tokens are not in it). */
function costText(result: Extract<SDKMessage, { type: "result" }>): string {
  const priced = `$${result.total_cost_usd.toFixed(4)}`;
  const unpriced = result.unpriced_models ?? [];
  if (unpriced.length === 0) return priced;
  const names = unpriced.join(", ");
  return result.total_cost_usd === 0 ? `cost unknown: no price for ${names}` : `${priced} + unknown for ${names}`;
}

/**
 * The start of `text`: at most {@link PREVIEW_LINES} lines and {@link PREVIEW_CHARS}
 * characters, then a line saying how much is left out.
 */
export function preview(text: string): string {
  const lines = text.split("\n");
  const head = lines.slice(0, PREVIEW_LINES).join("\n");
  const shown = head.slice(0, PREVIEW_CHARS);
  if (shown === text) return text;
  const hiddenLines = lines.length - shown.split("\n").length;
  const more = hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines > 1 ? "s" : ""}` : "the rest of the line";
  return `${shown}${shown.length < head.length ? " …" : ""}\n… ${more}, ${text.length - shown.length} more characters (--full shows all)`;
}

function indent(text: string): string[] {
  return text.split("\n").map((line) => `    ${line}`);
}
