export * from "./content.js";
export * from "./messages.js";
