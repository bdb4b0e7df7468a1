export * from "./agent/index.js";
export * from "./errors/index.js";
export * from "./loop/index.js";
export * from "./model/index.js";
export * from "./protocol/index.js";
export * from "./sessions/index.js";
export { type DefaultToolsOptions, defaultTools, type OutputFormat } from "./tools/builtin/index.js";
export * from "./tools/index.js";
export {
  findTrustedFolder,
  type IgnoredProjectSettings,
  listTrustedFolders,
  type TrustedFolder,
  trustFolder,
  untrustFolder,
} from "./settings/index.js";
