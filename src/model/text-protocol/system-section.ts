import type { LanguageModelV3FunctionTool, LanguageModelV3ToolChoice } from "@ai-sdk/provider";
import { LOCAL_SERVER, mcpOrigin } from "./mcp-names.js";
import type { TextProtocolRules } from "./tool-block.js";

/**
 * The part of the system prompt that teaches the text tool protocol: the exact block
 * format with an example, the rules around it, and every tool's name, description and
 * JSON Schema. `toolChoice` `required` or `tool` adds a sentence saying a call is expected.
 */
export function toolProtocolSection(
  tools: readonly LanguageModelV3FunctionTool[],
  toolChoice?: LanguageModelV3ToolChoice,
  rules: TextProtocolRules = {},
): string {
  const lines = [
    "# Tools",
    "",
    "You can call tools. To call a tool, write a <tool> block that holds one JSON object with two keys:",
    '"tool_name" (the name of the tool) and "arguments" (a JSON object that matches the tool\'s input schema).',
    "For example, a call to a tool named get_weather (an illustration, not one of your tools):",
    "",
    "<tool>",
    '{"tool_name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}',
    "</tool>",
    "",
    "Rules:",
    "- Write one or more <tool> blocks, then stop. Write nothing after your last </tool>: wait for the results.",
    "- Write the JSON exactly: double-quoted keys and strings, no comments, no trailing commas.",
    '- Each result comes back in the next message as <tool_result tool_name="..." tool_call_id="...">...</tool_result>,',
    '  marked is_error="true" when the call failed. Never write <tool_result> blocks yourself.',
    "- You may think before you answer or call a tool inside <thinking>...</thinking>.",
    "- When you need no tool, answer in plain text without any <tool> block.",
  ];
  if (rules.oneCallPerTurn)
    lines[
      lines.indexOf(
        "- Write one or more <tool> blocks, then stop. Write nothing after your last </tool>: wait for the results.",
      )
    ] = "- Write at most one <tool> block per answer, then stop. Write nothing after </tool>: wait for its result.";
  if (rules.requireServerName)
    lines.push(
      `- Every <tool> block also has "server_name": "${LOCAL_SERVER}" for the tools under Available tools, the server's`,
      "  name for an MCP server's tools. A block without it is not run.",
    );
  const choice = choiceRule(toolChoice);
  if (choice) lines.push(choice);
  const servers = groupByServer(tools);
  if (servers.size > 0) {
    lines.push(
      `- Tools of MCP servers are listed per server. Call one with "server_name" (the server's name) and the`,
      `  tool's name on that server as "tool_name", or by its full name alone. "server_name": "${LOCAL_SERVER}" means`,
      "  the tools under Available tools.",
    );
  }
  lines.push("", "## Available tools");
  for (const tool of tools) if (!mcpOrigin(tool)) describe(lines, tool.name, tool);
  for (const [server, entries] of servers) {
    lines.push("", `## Tools of MCP server ${JSON.stringify(server)}`);
    for (const { tool, name } of entries) describe(lines, `${name} (full name: ${tool.name})`, tool);
  }
  return lines.join("\n");
}

function describe(lines: string[], heading: string, tool: LanguageModelV3FunctionTool): void {
  lines.push("", `### ${heading}`);
  if (tool.description) lines.push(tool.description.trim());
  lines.push(`Input schema: ${JSON.stringify(tool.inputSchema)}`);
}

/** MCP tools by server, in the order given, with each tool's name on its server. */
function groupByServer(
  tools: readonly LanguageModelV3FunctionTool[],
): Map<string, Array<{ tool: LanguageModelV3FunctionTool; name: string }>> {
  const servers = new Map<string, Array<{ tool: LanguageModelV3FunctionTool; name: string }>>();
  for (const tool of tools) {
    const origin = mcpOrigin(tool);
    if (!origin) continue;
    const entries = servers.get(origin.server) ?? [];
    entries.push({ tool, name: origin.tool });
    servers.set(origin.server, entries);
  }
  return servers;
}

function choiceRule(toolChoice: LanguageModelV3ToolChoice | undefined): string | undefined {
  if (toolChoice?.type === "required") return "- In this answer you must call at least one tool.";
  if (toolChoice?.type === "tool") return `- In this answer you must call the tool ${toolChoice.toolName}.`;
  return undefined;
}
