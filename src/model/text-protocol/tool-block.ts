import { z } from "zod";
import { LOCAL_SERVER, type ToolNameResolver } from "./mcp-names.js";

/**
 * Forge's stricter rules for the text protocol, each off by default: every block names its
 * `server_name` (`"local"` for the run's own tools), and one tool call per answer.
 */
export interface TextProtocolRules {
  requireServerName?: boolean;
  oneCallPerTurn?: boolean;
}

/** Name given to a call whose block names no tool; the loop answers it as an unknown tool. */
export const INVALID_TOOL_NAME = "invalid_tool_call";

/** What the model must write inside `<tool>...</tool>`. */
export const ToolBlock = z.object({
  tool_name: z.string().min(1),
  /** `"local"` for the run's own tools, an MCP server's name for that server's tools. */
  server_name: z.string().min(1).optional(),
  arguments: z.record(z.string(), z.unknown()).nullish(),
});
export type ToolBlock = z.infer<typeof ToolBlock>;

/**
 * A `<tool>` block turned into a call. `input` is JSON text, as the AI SDK's `tool-call`
 * part carries it. `problem` is set when the block was malformed; then `input` is never a
 * JSON object, so the loop does not run the tool and answers with an `is_error` result.
 */
export interface ToolBlockCall {
  toolName: string;
  input: string;
  problem?: string;
}

/**
 * Read one block. Well-formed blocks become the named call with their arguments (missing
 * arguments mean `{}`; arguments written as a JSON string holding an object are accepted).
 * Malformed blocks still become a call, so the model hears about it in the tool result:
 * - not valid JSON, or not closed: the tool named in the text (or {@link INVALID_TOOL_NAME})
 *   with the raw text as its input, which the loop reports as arguments that are not JSON;
 * - no `tool_name`: a call to {@link INVALID_TOOL_NAME}, which the loop reports as an
 *   unknown tool, listing the real ones;
 * - `arguments` not an object: the named tool with the arguments as written (not an object,
 *   so the loop reports them as invalid).
 * A block that was not closed but holds complete, valid JSON is accepted as it is: models
 * (and stop sequences) often drop the final `</tool>`. A `"server_name"` is resolved with
 * `resolveName` (see `toolNameResolver`).
 */
export function readToolBlock(
  body: string,
  closed: boolean,
  resolveName: ToolNameResolver = (_server, name) => name,
  rules: TextProtocolRules = {},
): ToolBlockCall {
  const text = stripCodeFence(body.trim());
  const json = parseJson(text);
  if (!json.ok) {
    const problem = closed
      ? `The <tool> block is not valid JSON (${json.error}).`
      : "The <tool> block was cut off before its closing </tool> tag.";
    return { toolName: namedTool(text) ?? INVALID_TOOL_NAME, input: text, problem };
  }
  const block = ToolBlock.safeParse(json.value);
  if (block.success && rules.requireServerName && block.data.server_name === undefined)
    return refused(
      block.data.tool_name,
      text,
      `The <tool> block has no "server_name": write "${LOCAL_SERVER}" for the tools under Available tools, or the MCP server's name for its tools. The call was not run.`,
    );
  if (block.success) {
    const toolName = resolveName(block.data.server_name, block.data.tool_name);
    return { toolName, input: JSON.stringify(block.data.arguments ?? {}) };
  }
  const value = json.value;
  const name = isRecord(value) && typeof value.tool_name === "string" ? value.tool_name : "";
  if (name.length === 0) {
    return {
      toolName: INVALID_TOOL_NAME,
      input: text,
      problem: 'The <tool> block has no "tool_name": say which tool to call.',
    };
  }
  const args = isRecord(value) ? value.arguments : undefined;
  const nested = typeof args === "string" ? parseJson(args) : undefined;
  if (nested?.ok && isRecord(nested.value)) return { toolName: name, input: JSON.stringify(nested.value) };
  return {
    toolName: name,
    input: JSON.stringify(args) ?? "null",
    problem: 'The "arguments" of the <tool> block must be a JSON object.',
  };
}

/**
 * A well-formed call the protocol's rules refuse: its input is the block's text as a JSON
 * string (never an object), so the loop does not run it and the model is told `problem`.
 */
export function refused(toolName: string, text: string, problem: string): ToolBlockCall {
  return { toolName, input: JSON.stringify(text), problem };
}

/** Models like to wrap JSON in a Markdown fence even inside a tag; look through it. */
function stripCodeFence(text: string): string {
  const fenced = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(text);
  return fenced?.[1] !== undefined ? fenced[1].trim() : text;
}

/** The tool name of a block whose JSON is broken, when it can still be read. */
function namedTool(text: string): string | undefined {
  const match = /"tool_name"\s*:\s*"((?:[^"\\]|\\.)+)"/.exec(text);
  const name = match?.[1];
  if (name === undefined) return undefined;
  const decoded = parseJson(`"${name}"`);
  return decoded.ok && typeof decoded.value === "string" && decoded.value.length > 0 ? decoded.value : undefined;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
