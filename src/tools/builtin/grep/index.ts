export type { GrepToolOptions } from "./grep-options.js";
export { grepTool } from "./grep-tool.js";
export { findRipgrep } from "./find-ripgrep.js";
