export {
  bindToolSearch,
  notLoadedError,
  presentTools,
  rebindToolSearch,
  searchCatalog,
  toolSearchInUse,
} from "./deferral.js";
export { functionLine, loadedToolNames, TOOL_SEARCH_TOOL_NAME } from "./loaded.js";
export { DEFAULT_MAX_RESULTS, type SearchableTool, searchTools } from "./rank.js";
export {
  DEFAULT_TOOL_SEARCH_PERCENT,
  parseToolSearch,
  type ToolSearchOption,
  type ToolSearchSetting,
} from "./setting.js";
export { TOOL_SEARCH_DESCRIPTION, ToolSearchInput, type ToolSearchOutput, toolSearchTool } from "./tool-search-tool.js";
