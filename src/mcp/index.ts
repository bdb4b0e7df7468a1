export { DEFAULT_MAX_MCP_OUTPUT_TOKENS, type McpCallLimits, mcpCallLimits } from "./call-limits.js";
export {
  type McpHttpServerConfig,
  type McpSdkServerConfigWithInstance,
  type McpServerConfig,
  McpServersOption,
  type McpServerStatus,
  type McpSSEServerConfig,
  type McpStdioServerConfig,
} from "./config.js";
export type { ElicitationRequest, ElicitationResult, OnElicitation } from "./elicitation.js";
export { connectMcpServers } from "./lazy.js";
export type { McpServers, McpServersOptions } from "./manager.js";
export {
  type CreateSdkMcpServerOptions,
  createSdkMcpServer,
  type InferShape,
  type SdkMcpToolDefinition,
  tool,
  type ZodRawShape,
} from "./sdk-server.js";
export { sanitizeNamePart, ToolNamer } from "./tool-names.js";
