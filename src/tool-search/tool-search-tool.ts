import { z } from "zod";
import { type AnyTool, defineTool, type Tool, type ToolResult } from "../tools/index.js";
import { functionLine, TOOL_SEARCH_TOOL_NAME } from "./loaded.js";
import { DEFAULT_MAX_RESULTS, searchTools } from "./rank.js";

/** ToolSearch's input, as Claude Code's. */
export const ToolSearchInput = z.object({
  query: z
    .string()
    .describe('"select:<tool_name>[,<tool_name>...]" to load tools by name, or keywords to search for tools'),
  max_results: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`The most tools a keyword search returns (default ${DEFAULT_MAX_RESULTS})`),
});
/** ToolSearch's input: `query` (`select:` names or keywords) and `max_results`. */
export type ToolSearchInput = z.infer<typeof ToolSearchInput>;

/** What a call returns besides its text (`tool_use_result`), in Claude Code's shape. */
export interface ToolSearchOutput {
  /** The tools the call loaded, best first. */
  matches: string[];
  /** The query as the model gave it. */
  query: string;
  /** How many tools ToolSearch searched (the run's MCP tools). */
  total_deferred_tools: number;
}

export const TOOL_SEARCH_DESCRIPTION = `Search for deferred tools, or select them by name, and load them so that you can call them.

Deferred tools are listed below by name only: their input schemas have not been sent to you, so you cannot call them yet. Calling a deferred tool before it is loaded fails. This tool matches a query against the deferred tools' names and descriptions and loads the tools it returns: from your next turn on, their full definitions are in your tool list and you call them directly, like any other tool.

Query forms:
- "select:mcp__slack__read_channel" or "select:Read,Edit" — load these tools by exact name
- "slack message" — keyword search; returns up to max_results (default ${DEFAULT_MAX_RESULTS}) best matches, all of them loaded
- "+slack send" — "slack" must be in the tool's name; ranked by the other words

Every tool a search returns is loaded: do not select a tool again that a search already returned.`;

/**
 * The ToolSearch tool over `catalog`, the tools a search may load (the deferred MCP tools of
 * the registry it is bound to). It only reads: a call lists the matches as `<function>` lines
 * of name and description, and the loop sends their full definitions from the next model call
 * on (see `presentTools`). A `select:` of a tool that is not deferred returns it as well.
 */
export function toolSearchTool(
  catalog: () => { deferred: readonly AnyTool[]; all: readonly AnyTool[] },
): Tool<ToolSearchInput> {
  return defineTool({
    name: TOOL_SEARCH_TOOL_NAME,
    description: TOOL_SEARCH_DESCRIPTION,
    inputSchema: ToolSearchInput,
    sideEffect: "none",
    idempotent: true,
    execute: (input): ToolResult => {
      const { deferred, all } = catalog();
      const selecting = /^\s*select:/i.test(input.query);
      const matches = searchTools(selecting ? all : deferred, input.query, input.max_results ?? DEFAULT_MAX_RESULTS);
      const data: ToolSearchOutput = {
        matches: matches.map((tool) => tool.name),
        query: input.query,
        total_deferred_tools: deferred.length,
      };
      if (matches.length === 0) return { content: "No matching deferred tools found", data };
      const lines = matches.map((tool) => functionLine(tool));
      const text =
        `Loaded ${matches.length} tool${matches.length === 1 ? "" : "s"}: from your next turn on, their full ` +
        `definitions are in your tool list; call them directly.\n<functions>\n${lines.join("\n")}\n</functions>`;
      return { content: text, data };
    },
  });
}
