import { describeWebSearchResult, type SDKMessage, webSearchQuery } from "../protocol/index.js";

/** A tool result longer than this is cut in the export (the session keeps all of it). */
const MAX_RESULT_CHARS = 4000;

/**
 * A conversation as Markdown, for `/export`: each prompt under "## You", each answer under
 * "## Gyre", tool calls with their input, and their results in fenced blocks (long ones cut).
 * Subagents' messages are left out, as the screen leaves them out.
 */
export function conversationMarkdown(messages: readonly SDKMessage[], title: string): string {
  const out: string[] = [`# ${title}`];
  const queries = new Map<string, string>();
  let speaker: "you" | "gyre" | undefined;
  const heading = (who: "you" | "gyre") => {
    if (speaker !== who) out.push(who === "you" ? "## You" : "## Gyre");
    speaker = who;
  };
  for (const message of messages) {
    if ("parent_tool_use_id" in message && message.parent_tool_use_id) continue;
    if (message.type === "user") {
      const content = message.message.content;
      const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
      for (const block of blocks) {
        if (block.type === "text" && !message.isSynthetic) {
          heading("you");
          out.push(block.text);
        } else if (block.type === "tool_result") {
          const text =
            typeof block.content === "string"
              ? block.content
              : block.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
          const cut = text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n… (cut)` : text;
          out.push(`${block.is_error ? "Failed" : "Result"}:\n\n${fence(cut)}`);
        }
      }
    } else if (message.type === "assistant") {
      for (const block of message.message.content) {
        if (block.type === "text" && block.text.trim() !== "") {
          heading("gyre");
          out.push(block.text);
        } else if (block.type === "tool_use") {
          heading("gyre");
          out.push(`**${block.name}**\n\n${fence(JSON.stringify(block.input, null, 2), "json")}`);
        } else if (block.type === "server_tool_use") {
          heading("gyre");
          queries.set(block.id, webSearchQuery(block));
          out.push(`**WebSearch** (the provider's)\n\n${fence(JSON.stringify(block.input, null, 2), "json")}`);
        } else if (block.type === "web_search_tool_result") {
          out.push(`Result:\n\n${describeWebSearchResult(block, queries.get(block.tool_use_id) ?? "")}`);
        }
      }
    }
  }
  return `${out.join("\n\n")}\n`;
}

/** A fenced code block whose fence is longer than any run of backticks inside. */
function fence(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = "`".repeat(longest + 1);
  return `${marks}${language}\n${text}\n${marks}`;
}

/** The file `/export` writes when none is named: the session's short id and today's date, in cwd. */
export function defaultExportName(sessionId: string, now: Date): string {
  return `gyre-${now.toISOString().slice(0, 10)}-${sessionId.slice(0, 8)}.md`;
}
