export {
  type McpHttpServerConfig,
  type McpSdkServerConfigWithInstance,
  type McpServerConfig,
  McpServersOption,
  type McpServerState,
  type McpServerStatus,
  type McpSSEServerConfig,
  type McpStdioServerConfig,
} from "./config.js";
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
