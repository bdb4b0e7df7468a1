export { type GrepToolOptions, grepTool } from "./grep-tool.js";
export { findRipgrep } from "./find-ripgrep.js";
