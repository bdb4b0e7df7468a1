import type { z } from "zod";
import { GyreError } from "../errors/index.js";
import type { ClientTool, SideEffect, Tool, ToolContext, ToolOutput } from "./tool.js";

export interface DefineToolOptions<Schema extends z.ZodType> {
  name: string;
  description: string;
  inputSchema: Schema;
  /** Shorthand for `sideEffect: "read-only"`; read-only tools may run concurrently. */
  readOnly?: boolean;
  sideEffect?: SideEffect;
  maxOutputChars?: number;
  timeoutMs?: number;
  enabled?: boolean;
  /** Running a call twice has the effect of running it once: a call cut off by a crash may run again (see `Tool.idempotent`). */
  idempotent?: boolean;
  /** Runs the tool. Leave it out for a client-executed tool: the run pauses and the caller answers its calls. */
  execute?(input: z.infer<Schema>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Define a typed tool. The input schema is validated before `execute` is called. A name the
 * providers would reject throws `GyreError("config_error")`.
 */
export function defineTool<Schema extends z.ZodType>(
  options: DefineToolOptions<Schema> & { execute: NonNullable<DefineToolOptions<Schema>["execute"]> },
): Tool<z.infer<Schema>>;
/** Define a client-executed tool (no `execute`): the run pauses on its calls for the caller to answer. */
export function defineTool<Schema extends z.ZodType>(
  options: DefineToolOptions<Schema> & { execute?: undefined },
): ClientTool<z.infer<Schema>>;
export function defineTool<Schema extends z.ZodType>(
  options: DefineToolOptions<Schema>,
): Tool<z.infer<Schema>> | ClientTool<z.infer<Schema>> {
  if (!TOOL_NAME.test(options.name)) {
    throw new GyreError("config_error", `Tool name "${options.name}" must match ${TOOL_NAME} (the providers' rule).`);
  }
  const sideEffect = options.sideEffect ?? (options.readOnly ? "read-only" : "mutating");
  const { execute } = options;
  return {
    name: options.name,
    description: options.description,
    inputSchema: options.inputSchema as z.ZodType<z.infer<Schema>>,
    sideEffect,
    maxOutputChars: options.maxOutputChars,
    timeoutMs: options.timeoutMs,
    enabled: options.enabled,
    ...(options.idempotent && { idempotent: true }),
    ...(execute && { execute: async (input, context) => execute(input, context) }),
  };
}
