export {
  type SearchBackend,
  SearchFailed,
  type SearchHit,
  type SearchRequest,
  searchBackend,
} from "./search-backends.js";
export { WebSearchInput, type WebSearchOutput, type WebSearchToolOptions, webSearchTool } from "./web-search-tool.js";
export { WebSearchSettings } from "./web-search-settings.js";
