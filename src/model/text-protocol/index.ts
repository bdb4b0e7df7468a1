export { type ParsedEvent, TextProtocolParser } from "./parser.js";
export { MalformedCall, rewritePrompt, TEXT_PROTOCOL_METADATA } from "./rewrite-prompt.js";
export { toolProtocolSection } from "./system-section.js";
export {
  INVALID_TOOL_NAME,
  readToolBlock,
  type TextProtocolRules,
  ToolBlock,
  type ToolBlockCall,
} from "./tool-block.js";
export { isTextProtocolModel, wrapTextProtocol } from "./wrap.js";
export { LOCAL_SERVER, MCP_TOOL_OPTIONS, mcpOrigin, toolNameResolver, type ToolNameResolver } from "./mcp-names.js";
