export {
  type HooksSource,
  type LoadedSettings,
  type LoadedSettingsFile,
  type LoadSettingsOptions,
  loadSettings,
  mergeSettings,
} from "./load-settings.js";
export { parseSettingsText, readSettingsFile } from "./read-settings-file.js";
export { PermissionsSettings, SettingsFile } from "./schema.js";
export { type SettingsScope, type SettingsSource, settingsSources } from "./sources.js";
export {
  findTrustedFolder,
  listTrustedFolders,
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
  type IgnoredSettingsFile,
  restrictUntrusted,
} from "./untrusted.js";
