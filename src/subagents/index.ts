export { type AgentFile, type AgentFileSources, loadAgentFiles, parseAgentFile } from "./agent-files.js";
export { AGENT_TOOL_NAME, agentTool, type SubagentCall } from "./agent-tool.js";
export {
  type AgentDefinition,
  type AgentMcpServerSpec,
  AgentsOption,
  GENERAL_PURPOSE,
  GENERAL_PURPOSE_NAME,
  MODEL_ALIASES,
} from "./definition.js";
