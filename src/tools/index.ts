export { type DefineToolOptions, defineTool } from "./define-tool.js";
export {
  type ExecuteOptions,
  errorResult,
  executeTool,
  type PreparedCall,
  prepareCall,
  type ToolCall,
} from "./execute.js";
export { type ToolDefinition, type ToolFilter, ToolRegistry, toJsonSchema } from "./registry.js";
export type {
  AnyTool,
  SideEffect,
  Tool,
  ToolContent,
  ToolContext,
  ToolEvent,
  ToolOutput,
  ToolResult,
} from "./tool.js";
export { ToolSession } from "./tool-session.js";
export { DEFAULT_MAX_OUTPUT_CHARS, spillPathFor, truncateOutput } from "./truncate.js";
