export * from "./content.js";
export * from "./messages.js";
export type { HistoryEntry } from "./history.js";
export { API_MESSAGE_EXTRAS, apiBlock, apiStreamEvent, apiUsage, resultUsage } from "./api-shapes.js";
export { describeWebSearchResult, webSearchQuery } from "./web-search.js";
