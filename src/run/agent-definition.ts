import { z } from "zod";
import { type McpServerConfig, McpServersOption } from "../mcp/index.js";
import { LATEST_HAIKU, LATEST_OPUS, LATEST_SONNET } from "../model/index.js";
import { PermissionMode } from "../protocol/index.js";

/**
 * One MCP entry of an agent (the Claude Agent SDK's `AgentMcpServerSpec`): the name of one of
 * the parent's servers, whose tools the agent gets even when `tools` does not list them, or a
 * record of servers of its own, started when the agent starts and closed when it ends.
 */
export type AgentMcpServerSpec = string | Record<string, McpServerConfig>;

/**
 * A subagent the model can start with the `Agent` tool (the Claude Agent SDK's
 * `AgentDefinition`, plus `handoffs`). It runs with a fresh history, `prompt` as its system
 * prompt and the tools listed (default: all of the parent's), under the parent's permissions.
 */
export interface AgentDefinition {
  /** When to use this agent: the model reads it to choose one. */
  description: string;
  /** The agent's system prompt. */
  prompt: string;
  /** Tool names the agent may use (default: every tool of the parent but `Agent`). */
  tools?: string[];
  /** Tool names taken away from the agent. */
  disallowedTools?: string[];
  /**
   * `"inherit"` (default: the parent's current model), an alias (`"sonnet"`, `"opus"`,
   * `"haiku"`) or a full model string such as `"openai/gpt-5-mini"`.
   */
  model?: string;
  /** The agent's own turn limit (default: the parent's). */
  maxTurns?: number;
  /**
   * A mode that narrows the parent's (`"plan"` makes the agent read-only, `"default"` makes it
   * ask where a parent in `acceptEdits` would not); a mode that would widen the parent's is ignored.
   */
  permissionMode?: PermissionMode;
  /**
   * Agents this one may hand the run over to (the OpenAI Agents SDK's handoffs): it gets a
   * `transfer_to_<name>` tool per name, and calling it switches the rest of the run to that
   * agent's prompt, tools and model, with the history kept. Each name must be an agent of the run.
   */
  handoffs?: string[];
  /**
   * MCP servers of the agent: a parent's server by name, or servers of its own (their tools are
   * the agent's only). Without it the agent's MCP tools are the parent's, narrowed by `tools`.
   */
  mcpServers?: AgentMcpServerSpec[];
  /**
   * Skills the agent starts with (the Claude Agent SDK's `skills`): each one's instructions are
   * loaded into its first message, by name as the `skills` option takes them. The run's skills
   * only (those of `settingSources`' folders); a name that matches none is reported to the agent.
   */
  skills?: string[];
}

/** Claude Code's model aliases, as Anthropic model strings: each the newest model of its tier. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: `anthropic/${LATEST_SONNET}`,
  opus: `anthropic/${LATEST_OPUS}`,
  haiku: `anthropic/${LATEST_HAIKU}`,
};

/** The agent that is always there (Claude Code's): every tool of the parent, a general prompt. */
export const GENERAL_PURPOSE: AgentDefinition = {
  description:
    "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. " +
    "When you are searching for a keyword or file and are not confident that you will find the right match in the " +
    "first few tries, use this agent to perform the search for you.",
  prompt:
    "You are an agent working on a task given to you by another agent. Use the tools available to complete the " +
    "task fully, then answer with a concise report of what you found or did: that report is all the other agent " +
    "sees. Give file paths as absolute paths, and include the code or facts the other agent needs.",
};

export const GENERAL_PURPOSE_NAME = "general-purpose";

const Definition = z.strictObject({
  description: z.string().min(1),
  prompt: z.string(),
  tools: z.array(z.string().min(1)).optional(),
  disallowedTools: z.array(z.string().min(1)).optional(),
  model: z.string().min(1).optional(),
  maxTurns: z.number().int().positive().optional(),
  permissionMode: PermissionMode.optional(),
  handoffs: z.array(z.string().min(1)).optional(),
  mcpServers: z.array(z.union([z.string().min(1), McpServersOption])).optional(),
  skills: z.array(z.string().min(1)).optional(),
});

/** `agents` as `query()` checks it: agent name to definition. */
export const AgentsOption = z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, - _ ."), Definition);
