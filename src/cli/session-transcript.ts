import type { SDKMessage, WebSearchToolResultBlock } from "../protocol/index.js";
import { applyMessage, initialDeriveState, type ToolState } from "../sessions/index.js";

/** How much of a tool result `gyre sessions show` prints without `--full`. */
export const PREVIEW_LINES = 10;
export const PREVIEW_CHARS = 1000;

/**
 * The transcript of a session as text: prompts (`> `), the assistant's text and tool calls
 * (`[Name] input`, with `(running)` or `(interrupted)` when no result was stored for them),
 * each tool result under `← Name` (a preview of its first lines, or all of it with `full`),
 * and a line per handoff and per run result. `nested` holds lines to show
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
  const unfinished = unfinishedCalls(messages);
  const lines: string[] = [];
  const shown = new Set<string>();
  for (const message of messages) {
    const own = messageLines(message, { toolNames, unfinished }, full);
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

/** What the transcript knows of the session's calls: their names, and what became of those without a result. */
interface Calls {
  toolNames: ReadonlyMap<string, string>;
  unfinished: ReadonlyMap<string, string>;
}

/**
 * The calls no stored result ended, by id, with what became of them as the store derives it
 * (the same reducer, replayed): `(running)` while the session's run runs them, `(interrupted)`
 * when a later run found them left open by one that died. A call not started yet shows no mark.
 */
function unfinishedCalls(messages: readonly SDKMessage[]): Map<string, string> {
  const states = new Map<string, ToolState["status"]>();
  const answered = new Set<string>();
  let state = initialDeriveState();
  const context = { sessionId: "", now: 0, newId: () => "" };
  for (const message of messages) {
    const applied = applyMessage(state, message, context);
    state = applied.state;
    for (const part of applied.parts) if (part.type === "tool") states.set(part.callId, part.state.status);
    if (message.type === "user" && Array.isArray(message.message.content))
      for (const block of message.message.content) if (block.type === "tool_result") answered.add(block.tool_use_id);
  }
  const marks = new Map<string, string>();
  for (const [id, status] of states) {
    if (answered.has(id)) continue;
    if (status === "running") marks.set(id, "running");
    else if (status === "error") marks.set(id, "interrupted");
  }
  return marks;
}

function messageLines(message: SDKMessage, { toolNames, unfinished }: Calls, full: boolean): string[] {
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
            ? [`  [${block.name}] ${JSON.stringify(block.input)}${mark(unfinished.get(block.id))}`]
            : block.type === "server_tool_use"
              ? [`  [WebSearch, by the provider] ${JSON.stringify(block.input)}`]
              : block.type === "web_search_tool_result"
                ? [`  ← WebSearch${Array.isArray(block.content) ? "" : " (error)"}`, ...indent(searchLines(block))]
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

function mark(state: string | undefined): string {
  return state === undefined ? "" : `  (${state})`;
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

/** A provider's search results, a page a line. */
function searchLines(block: WebSearchToolResultBlock): string {
  if (!Array.isArray(block.content)) return `The search failed: ${block.content.error_code}.`;
  return block.content.map((page) => `${page.title} — ${page.url}`).join("\n") || "No results.";
}

function indent(text: string): string[] {
  return text.split("\n").map((line) => `    ${line}`);
}
