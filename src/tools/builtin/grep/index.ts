export { type GrepToolOptions, grepTool } from "./grep-tool.js";
