import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { GyreError } from "../errors/index.js";
import type { ImageBlock, TextBlock } from "../protocol/index.js";
import { defineTool, type Tool, type ToolResult } from "../tools/index.js";
import type { McpCallLimits } from "./call-limits.js";
import { limitOutput } from "./output-limit.js";

/** A connected server, as the resource tools see it. */
export interface ResourceServer {
  /** The server's key in `mcpServers`. */
  server: string;
  client: Client;
}

/** Pages of a resource list read at most: a server whose cursors never end cannot keep a call going. */
const MAX_PAGES = 100;

const ListInput = z.object({
  server: z.string().optional().describe("Only this server's resources (default: every server's)"),
});

const ReadInput = z.object({
  server: z.string().describe("The MCP server's name"),
  uri: z.string().describe("The resource's URI"),
});

/**
 * Claude Code's `ListMcpResources` and `ReadMcpResource` tools, over the servers that offer
 * resources. `servers` is asked on every call, so servers that come and go are seen as they
 * are now. Both tools only read.
 */
export function resourceTools(servers: () => ResourceServer[], limits: McpCallLimits): Tool<unknown>[] {
  const withResources = () => servers().filter(({ client }) => client.getServerCapabilities()?.resources);
  const find = (name: string, toolName: string) => {
    const available = withResources();
    const found = available.find((entry) => entry.server === name);
    if (!found) {
      const names = available.map((entry) => entry.server).join(", ") || "(none)";
      throw new GyreError(
        "mcp_tool_error",
        `No MCP server "${name}" with resources. Servers with resources: ${names}`,
        {
          toolName,
        },
      );
    }
    return found;
  };
  const list = defineTool({
    name: "ListMcpResources",
    description:
      "Lists the resources of the connected MCP servers (or of one server). Each entry has the resource's uri, " +
      "name, mimeType, description and the server it comes from; read one with ReadMcpResource.",
    inputSchema: ListInput,
    readOnly: true,
    async execute({ server }, context) {
      const targets = server === undefined ? withResources() : [find(server, "ListMcpResources")];
      const entries = [];
      for (const target of targets) {
        for (const resource of await listResources(target.client, context.signal)) {
          entries.push({
            uri: resource.uri,
            name: resource.name,
            ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }),
            ...(resource.description !== undefined && { description: resource.description }),
            server: target.server,
          });
        }
      }
      return limitOutput({ content: JSON.stringify(entries, null, 2), data: entries }, limits.maxOutputTokens);
    },
  });
  const read = defineTool({
    name: "ReadMcpResource",
    description: "Reads a resource of an MCP server, named by the server and the resource's URI.",
    inputSchema: ReadInput,
    readOnly: true,
    async execute({ server, uri }, context) {
      const target = find(server, "ReadMcpResource");
      const result = await target.client.readResource({ uri }, { signal: context.signal });
      return limitOutput(resourceContent(result), limits.maxOutputTokens);
    },
  });
  return [list, read] as Tool<unknown>[];
}

async function listResources(client: Client, signal: AbortSignal): Promise<Resource[]> {
  const resources: Resource[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listResources(cursor === undefined ? {} : { cursor }, { signal });
    resources.push(...result.resources);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return resources;
}

/** A resource's contents for the model: text (and base64 of a text type) as text, images as images, other binary data named. */
function resourceContent(result: ReadResourceResult): ToolResult {
  const blocks: Array<TextBlock | ImageBlock> = result.contents.map((item) => {
    if ("text" in item) return { type: "text", text: item.text };
    const mimeType = item.mimeType ?? "";
    if (/^text\/|^application\/(json|xml)\b/.test(mimeType)) {
      return { type: "text", text: Buffer.from(item.blob, "base64").toString("utf8") };
    }
    if (mimeType.startsWith("image/")) {
      return { type: "image", source: { type: "base64", media_type: mimeType, data: item.blob } };
    }
    return { type: "text", text: `[resource ${item.uri} (${mimeType || "binary"}) not shown: binary data]` };
  });
  const onlyText = blocks.every((block) => block.type === "text");
  return { content: onlyText ? blocks.map((block) => (block as TextBlock).text).join("\n") : blocks };
}
