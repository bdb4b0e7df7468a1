import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../tools/index.js";

/** A Gyre tool result as an MCP call result: text as text content, images as image content. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const blocks =
    typeof result.content === "string" ? [{ type: "text" as const, text: result.content }] : result.content;
  const content: CallToolResult["content"] = blocks.map((block) =>
    block.type === "text"
      ? { type: "text", text: block.text }
      : { type: "image", data: block.source.data, mimeType: block.source.media_type },
  );
  return { content, ...(result.isError === true && { isError: true }) };
}

/** An error result whose text the client (often a model) reads to decide what to do next. */
export function errorCallResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
