export { type LoadedSettings, loadSettings, mergeSettings } from "./load-settings.js";
export { type ProjectSettingsFile, readProjectSettingsFiles } from "./project-files.js";
export {
  findTrustedFolder,
  listTrustedFolders,
  realOrResolved,
  TrustedFolder,
  type TrustOutcome,
  type TrustStoreOptions,
  trustFolder,
  trustStorePath,
  type UntrustOutcome,
  untrustFolder,
} from "./trust.js";
export {
  describeIgnoredSettings,
  type IgnoredProjectSettings,
  mergeIgnoredSettings,
  untrustedPermissionsFolder,
} from "./untrusted.js";
