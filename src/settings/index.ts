export { type LoadedSettings, loadSettings, mergeSettings } from "./load-settings.js";
export {
  findTrustedFolder,
  listTrustedFolders,
  TrustedFolder,
  type TrustOutcome,
  type TrustStoreOptions,
  trustFolder,
  type UntrustOutcome,
  untrustFolder,
} from "./trust.js";
export { describeIgnoredSettings, type IgnoredProjectSettings, mergeIgnoredSettings } from "./untrusted.js";
