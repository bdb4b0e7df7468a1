export { type GrepToolOptions, grepTool } from "./grep-tool.js";
export { GrepInput } from "./input.js";
export { GrepOutputMode } from "./types.js";
