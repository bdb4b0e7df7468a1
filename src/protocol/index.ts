export * from "./content.js";
export * from "./messages.js";
export type { HistoryEntry } from "./history.js";
