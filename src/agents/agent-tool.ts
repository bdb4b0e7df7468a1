import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../tools/index.js";
import type { AgentDefinition } from "../run/index.js";

/** The tool's name (Claude Code's; its older name `Task` is accepted in rules and calls). */
export const AGENT_TOOL_NAME = "Agent";

/** What the model asks of a subagent. */
export interface SubagentCall {
  description: string;
  prompt: string;
  subagentType: string;
  /** A model for this call only (an alias or full model string). */
  model?: string;
  /** Start the agent and return at once; `AgentOutput` reads its result later. */
  runInBackground?: boolean;
}

const AgentInput = z.strictObject({
  description: z.string().describe("A short (3-5 word) description of the task"),
  prompt: z.string().describe("The task for the agent to perform"),
  subagent_type: z.string().describe("The type of specialized agent to use for this task"),
  model: z
    .string()
    .optional()
    .describe(
      "Optional model for this agent: sonnet, opus, haiku or a provider/model string. Default: the agent's own, else yours.",
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      "Set to true to run this agent in the background: the call returns a task_id at once, and AgentOutput reads the agent's result later.",
    ),
});

type AgentInput = z.infer<typeof AgentInput>;

/**
 * The `Agent` tool (Claude Code's input schema): starts a subagent of the named type with the
 * prompt and returns its final answer. `run` does the work (the loop provides it). The tool
 * itself changes nothing: the subagent's own calls are checked one by one, so it needs no
 * permission and several calls in one turn run together.
 */
export function agentTool(
  agents: ReadonlyMap<string, AgentDefinition>,
  run: (call: SubagentCall, context: ToolContext) => Promise<ToolResult>,
): Tool<AgentInput> {
  return {
    name: AGENT_TOOL_NAME,
    aliases: ["Task"],
    description: describeAgents(agents),
    inputSchema: AgentInput,
    sideEffect: "none",
    // The subagent's loop ends on the abort with an interrupted result, which its session keeps.
    endsOnAbort: true,
    execute: (input, context) =>
      run(
        {
          description: input.description,
          prompt: input.prompt,
          subagentType: input.subagent_type,
          ...(input.model !== undefined && { model: input.model }),
          ...(input.run_in_background === true && { runInBackground: true }),
        },
        context,
      ),
  };
}

function describeAgents(agents: ReadonlyMap<string, AgentDefinition>): string {
  const list = [...agents].map(([name, agent]) => {
    const tools = agent.tools ? agent.tools.join(", ") : "all of yours";
    const servers = (agent.mcpServers ?? []).flatMap((spec) => (typeof spec === "string" ? [spec] : Object.keys(spec)));
    return `- ${name}: ${agent.description} (Tools: ${tools}${servers.length > 0 ? `; MCP servers: ${servers.join(", ")}` : ""})`;
  });
  return [
    "Launch an agent that works on a task on its own, with its own context, and reports back. Use it for",
    "searches and research that would fill your context, and for independent tasks that can run in parallel:",
    "several Agent calls in one message run at the same time. The agent sees only your prompt, so say exactly",
    "what to do and what to report. Its answer comes back to you, not to the user.",
    "With run_in_background: true the call returns a task_id at once while the agent works; read its answer with",
    "AgentOutput. Agents still running when you give your final answer are stopped.",
    "",
    "Available agent types (subagent_type):",
    ...list,
  ].join("\n");
}
