import { z } from "zod";
import type { CallSettings } from "../model/index.js";
import type { AnyTool } from "../tools/index.js";
import { RequestError } from "./errors.js";
import type { CustomTool, FunctionTool, RequestTool, ToolChoice } from "./request-schema.js";

/** The request's tools as the loop runs them, and what the upstream model is told to choose. */
export interface ToolPlan {
  tools: AnyTool[];
  /** Names whose calls come back to the client; the others are refused by the server. */
  allowed: ReadonlySet<string>;
  /** Names of freeform (`custom`) client tools: their calls are `custom_tool_call` items. */
  custom: ReadonlySet<string>;
  toolChoice: CallSettings["toolChoice"];
}

/** The single string a freeform tool's call carries, as a function tool's input (for upstreams without freeform tools). */
export const CUSTOM_INPUT_SCHEMA = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's input, as free text." } },
  required: ["input"],
  additionalProperties: false,
};

function isClientTool(tool: RequestTool): tool is FunctionTool | CustomTool {
  return tool.type === "function" || tool.type === "custom";
}

/** A freeform tool's description for an upstream that gets it as a function: the grammar, if any, goes with it. */
function describeCustom(tool: CustomTool): string {
  const format = tool.format;
  const grammar =
    format?.type === "grammar" ? `\n\nThe input follows this ${format.syntax} grammar:\n${format.definition}` : "";
  return `${tool.description ?? ""}${grammar}`;
}

/**
 * The client's function tools. An allowed one is a client tool (no `execute`): the run pauses
 * on its calls and the response returns them. With `allowed_tools` the model is offered only
 * the allowed ones, so it knows before it answers what it may call (as the AI SDK's
 * `activeTools` does). One outside a forced function or `none` stays visible to the model but is
 * refused here: the model gets an error result and may try again, and the client never sees the
 * call (so is a call to a tool it was not offered, from an earlier turn's habits).
 */
export function planTools(requestTools: readonly RequestTool[], choice: ToolChoice | undefined): ToolPlan {
  const functions = requestTools.filter(isClientTool);
  const custom = new Set(functions.flatMap((tool) => (tool.type === "custom" ? [tool.name] : [])));
  const names = new Set(functions.map((tool) => tool.name));
  if (names.size !== functions.length)
    throw new RequestError(400, "Two tools have the same name.", "invalid_value", "tools");
  const { allowed, toolChoice } = decide(choice ?? "auto", names);
  const offered =
    typeof choice === "object" && choice.type === "allowed_tools"
      ? functions.filter((fn) => allowed.has(fn.name))
      : functions;
  const tools = offered.map((fn): AnyTool => {
    const common = {
      name: fn.name,
      description: fn.type === "custom" ? describeCustom(fn) : (fn.description ?? ""),
      inputSchema: z.unknown(),
      jsonSchema: fn.type === "custom" ? CUSTOM_INPUT_SCHEMA : (fn.parameters ?? { type: "object", properties: {} }),
      // An OpenAI Responses upstream gets a freeform tool as one (its grammar as the format).
      ...(fn.type === "custom" && {
        freeform: { description: fn.description ?? "", ...(fn.format && { format: fn.format }) },
      }),
      sideEffect: "none" as const,
    };
    if (allowed.has(fn.name)) return common;
    return {
      ...common,
      execute: async () => ({
        content: `${fn.name} may not be called in this response (tool_choice allows: ${[...allowed].join(", ") || "no tools"}). Call an allowed tool or answer without one.`,
        isError: true,
      }),
    };
  });
  return { tools, allowed, custom, toolChoice };
}

function decide(
  choice: ToolChoice,
  names: ReadonlySet<string>,
): { allowed: Set<string>; toolChoice: CallSettings["toolChoice"] } {
  if (choice === "auto" || choice === "required") return { allowed: new Set(names), toolChoice: { type: choice } };
  if (choice === "none") return { allowed: new Set(), toolChoice: { type: "none" } };
  if (choice.type === "function" || choice.type === "custom") {
    known(choice.name, names, "tool_choice.name");
    return { allowed: new Set([choice.name]), toolChoice: { type: "tool", toolName: choice.name } };
  }
  choice.tools.forEach((tool, index) => known(tool.name, names, `tool_choice.tools[${index}].name`));
  const allowed = new Set(choice.tools.map((tool) => tool.name));
  const [only] = allowed;
  const toolChoice: CallSettings["toolChoice"] =
    choice.mode === "auto"
      ? { type: "auto" }
      : allowed.size === 1 && only
        ? { type: "tool", toolName: only }
        : { type: "required" };
  return { allowed, toolChoice };
}

function known(name: string, names: ReadonlySet<string>, param: string): void {
  if (!names.has(name))
    throw new RequestError(400, `tool_choice names ${name}, which is not in tools.`, "invalid_value", param);
}
