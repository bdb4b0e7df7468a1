export type { AuthorizeMcpServerOptions, AuthorizeMcpServerResult } from "./authorize.js";
export {
  type McpHttpServerConfig,
  type McpOAuthOptions,
  type McpSdkServerConfigWithInstance,
  type McpServerConfig,
  McpServersOption,
  type McpServerStatus,
  type McpSSEServerConfig,
  type McpStdioServerConfig,
} from "./config.js";
export { authorizeMcpServer, connectMcpServers } from "./lazy.js";
export { defaultOAuthFolder, OAuthTokenStore } from "./oauth/index.js";
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
