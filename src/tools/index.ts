export { callTitle } from "./call-title.js";
export { type DefineToolOptions, defineTool } from "./define-tool.js";
export { errorResult, executeTool, type PreparedCall, prepareCall, type ToolCall } from "./execute.js";
export { type ToolDefinition, ToolRegistry, toJsonSchema } from "./registry.js";
export type {
  AnyTool,
  ClientTool,
  FileGuard,
  FoundPath,
  SideEffect,
  Tool,
  ToolContent,
  ToolContext,
  ToolEvent,
  ToolOutput,
  ToolResult,
} from "./tool.js";
export { ToolSession } from "./tool-session.js";
