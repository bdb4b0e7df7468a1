import type { ImageBlock, TextBlock } from "../protocol/index.js";
import type { ToolResult } from "../tools/index.js";

/** The parts of an MCP `tools/call` result Gyre reads; older servers may answer with `toolResult` only. */
interface CallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
}

type Block = TextBlock | ImageBlock;

/**
 * An MCP call result as a Gyre tool result: text stays text, images become image blocks the
 * model sees as images, audio and binary resources are named (the model cannot take them),
 * `isError` becomes `is_error`, and `structuredContent` is the result's `data` for callers
 * (and the text the model sees when the server sent no content).
 */
export function toToolResult(result: CallResult): ToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const blocks = content.map(toBlock);
  if (blocks.length === 0) {
    const fallback = result.structuredContent ?? result.toolResult;
    if (fallback !== undefined) blocks.push(text(JSON.stringify(fallback)));
  }
  const onlyText = blocks.every((block) => block.type === "text");
  return {
    content: onlyText ? blocks.map((block) => (block as TextBlock).text).join("\n") : blocks,
    ...(result.isError === true && { isError: true }),
    ...(result.structuredContent !== undefined && { data: result.structuredContent }),
  };
}

function toBlock(item: unknown): Block {
  const part = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
  const str = (key: string, from = part) => (typeof from[key] === "string" ? (from[key] as string) : "");
  switch (part.type) {
    case "text":
      return text(str("text"));
    case "image":
      return { type: "image", source: { type: "base64", media_type: str("mimeType"), data: str("data") } };
    case "audio":
      return text(`[audio (${str("mimeType")}) not shown: the model cannot take audio]`);
    case "resource": {
      const resource = (typeof part.resource === "object" && part.resource !== null ? part.resource : {}) as Record<
        string,
        unknown
      >;
      if (typeof resource.text === "string") return text(resource.text);
      return text(`[resource ${str("uri", resource)} (${str("mimeType", resource) || "binary"}) not shown]`);
    }
    case "resource_link":
      return text(`[resource link: ${str("uri")}${part.name ? ` (${str("name")})` : ""}]`);
    default:
      return text(`[content of type ${String(part.type)} not shown]`);
  }
}

function text(value: string): TextBlock {
  return { type: "text", text: value };
}
