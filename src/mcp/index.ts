export {
  type McpHttpServerConfig,
  type McpSdkServerConfigWithInstance,
  type McpServerConfig,
  McpServersOption,
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
export { connectMcpServers } from "./lazy.js";
export type { McpServers, McpServersOptions } from "./manager.js";
export { type RunMcpServers, type RunMcpServersInput, startRunMcpServers } from "./run-servers.js";
export {
  type CreateSdkMcpServerOptions,
  createSdkMcpServer,
  type InferShape,
  type SdkMcpToolDefinition,
  tool,
  type ZodRawShape,
} from "./sdk-server.js";
export { sanitizeNamePart, ToolNamer } from "./tool-names.js";
