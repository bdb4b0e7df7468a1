import { z } from "zod";
import { GyreError } from "../../errors/index.js";
import { defineTool } from "../define-tool.js";
import type { AnyTool } from "../tool.js";

/** `outputFormat` as in the Claude Agent SDK; the schema may also be a zod object schema. */
export interface OutputFormat {
  type: "json_schema";
  /** A JSON Schema of an object, or a zod object schema. */
  schema: Record<string, unknown> | z.ZodType;
}

export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

const DESCRIPTION = `Return your final answer as structured output matching this tool's input schema.
- Call it exactly once, when the task is done, with the complete answer.
- If the call is rejected as invalid, fix the input and call it again.`;

/**
 * The tool a run with `outputFormat` offers (named as in Claude Code): its input schema is
 * the requested one, so the tool layer validates the answer like any tool input and an
 * invalid one goes back to the model as an error; a valid one ends the run with it as the
 * result's `structured_output`.
 */
export function structuredOutputTool(format: OutputFormat): AnyTool {
  if (format.type !== "json_schema") {
    throw new GyreError("config_error", `outputFormat.type must be "json_schema", not "${String(format.type)}"`);
  }
  const schema = toZod(format.schema);
  return defineTool({
    name: STRUCTURED_OUTPUT_TOOL,
    description: DESCRIPTION,
    inputSchema: schema,
    readOnly: true,
    execute: (input) => ({
      content: "Structured output accepted.",
      endRun: { result: JSON.stringify(input), structuredOutput: input },
    }),
  }) as AnyTool;
}

function toZod(schema: OutputFormat["schema"]): z.ZodObject {
  let converted: z.ZodType;
  try {
    converted =
      schema instanceof z.ZodType ? schema : z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new GyreError("config_error", `outputFormat.schema is not a usable JSON Schema: ${String(error)}`, {
      cause: error,
    });
  }
  if (!(converted instanceof z.ZodObject)) {
    throw new GyreError(
      "config_error",
      'outputFormat.schema must describe an object (JSON Schema `"type": "object"`), as tool inputs are objects',
    );
  }
  return converted;
}
