import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../tools/index.js";

/** The tool's name; Claude Code's `TaskOutput` is accepted as an alias. */
export const AGENT_OUTPUT_TOOL_NAME = "AgentOutput";

/** How long a blocking read waits by default, and at most (Claude Code's TaskOutput bounds). */
export const AGENT_OUTPUT_DEFAULT_TIMEOUT_MS = 30_000;
export const AGENT_OUTPUT_MAX_TIMEOUT_MS = 600_000;

const AgentOutputInput = z.strictObject({
  task_id: z.string().min(1).describe("The task_id an Agent call with run_in_background returned"),
  block: z.boolean().default(true).describe("Whether to wait for the agent to finish (default true)"),
  timeout: z
    .number()
    .min(0)
    .default(AGENT_OUTPUT_DEFAULT_TIMEOUT_MS)
    .describe(
      `How long to wait in milliseconds when block is true (default ${AGENT_OUTPUT_DEFAULT_TIMEOUT_MS}, at most ${AGENT_OUTPUT_MAX_TIMEOUT_MS}; larger values are clamped)`,
    ),
});

type AgentOutputInput = z.infer<typeof AgentOutputInput>;

/** What the model asks of a background agent. */
export interface AgentOutputRequest {
  taskId: string;
  block: boolean;
  timeoutMs: number;
}

const DESCRIPTION = `Reads the status and result of an agent started with the Agent tool's run_in_background.
- task_id: the id the Agent call returned
- block: true (default) waits until the agent finishes or the timeout passes; false checks at once
- Returns the status (running, completed, failed or stopped) and, once it has finished, the agent's final answer`;

/**
 * The `AgentOutput` tool (the input of Claude Code's `TaskOutput`): `read` does the work (the
 * loop provides it, over the run's background agents). It only reads, so it needs no permission.
 */
export function agentOutputTool(
  read: (request: AgentOutputRequest, context: ToolContext) => Promise<ToolResult>,
): Tool<AgentOutputInput> {
  return {
    name: AGENT_OUTPUT_TOOL_NAME,
    aliases: ["TaskOutput"],
    description: DESCRIPTION,
    inputSchema: AgentOutputInput,
    sideEffect: "none",
    execute: (input, context) =>
      read(
        {
          taskId: input.task_id,
          block: input.block,
          timeoutMs: Math.min(input.timeout, AGENT_OUTPUT_MAX_TIMEOUT_MS),
        },
        context,
      ),
  };
}
