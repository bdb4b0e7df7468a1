// Agents: they drive runs, so they stand above run/ and loop/. `query()` here is the run with
// its agents wired in (the Agent tool, subagents, background agents, handoffs); `Agent` and
// `AgentSession` keep a conversation over it.
export { Agent, type AgentOptions, AgentSession, type AgentSessionOptions } from "./agent.js";
export { type AgentFile, type AgentFileSources, loadAgentFiles, parseAgentFile } from "./agent-files.js";
export {
  AGENT_OUTPUT_DEFAULT_TIMEOUT_MS,
  AGENT_OUTPUT_MAX_TIMEOUT_MS,
  AGENT_OUTPUT_TOOL_NAME,
  type AgentOutputRequest,
  agentOutputTool,
} from "./agent-output-tool.js";
export { AGENT_TOOL_NAME, agentTool, type SubagentCall } from "./agent-tool.js";
export { handoffTarget, handoffTool, handoffToolName, transferMessage } from "./handoff-tool.js";
export { query } from "./query.js";
