export type { AuthorizeMcpServerOptions, AuthorizeMcpServerResult } from "./authorize.js";
export { DEFAULT_MAX_MCP_OUTPUT_TOKENS, type McpCallLimits, mcpCallLimits } from "./call-limits.js";
export {
  type McpHttpServerConfig,
  type McpOAuthOptions,
  type McpSdkServerConfigWithInstance,
  type McpServerConfig,
  McpServersOption,
  type McpServerState,
  type McpServerStatus,
  type McpSSEServerConfig,
  type McpStdioServerConfig,
} from "./config.js";
export { readMcpConfigArgument } from "./config-argument.js";
export { addMcpServer, type McpConfigTarget, mcpConfigFileOf, removeMcpServer } from "./config-edit.js";
export { type McpFileServerConfig, parseServerEntry, SERVER_NAME } from "./config-file-schema.js";
export {
  byPrecedence,
  type McpConfigFilesOptions,
  type McpConfigPaths,
  type McpConfigScope,
  type McpFileServer,
  mcpConfigPaths,
  readJsonObject,
  readMcpConfigFiles,
} from "./config-files.js";
export { expandServerConfig, expandString } from "./expand-env.js";
export { authorizeMcpServer, connectMcpServers } from "./lazy.js";
export { defaultOAuthFolder, OAuthTokenStore } from "./oauth/index.js";
export type { ElicitationRequest, ElicitationResult, OnElicitation } from "./elicitation.js";
export type { McpServers, McpServersOptions } from "./manager.js";
export { resolveServerEntry, type RunMcpServers, type RunMcpServersInput, startRunMcpServers } from "./run-servers.js";
export {
  type CreateSdkMcpServerOptions,
  createSdkMcpServer,
  type InferShape,
  type SdkMcpToolDefinition,
  tool,
  type ZodRawShape,
} from "./in-process-server.js";
export { sanitizeNamePart, ToolNamer } from "./tool-names.js";
