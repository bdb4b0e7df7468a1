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
export {
  type AgentDefinition,
  type AgentMcpServerSpec,
  AgentsOption,
  GENERAL_PURPOSE,
  GENERAL_PURPOSE_NAME,
  MODEL_ALIASES,
} from "./definition.js";
