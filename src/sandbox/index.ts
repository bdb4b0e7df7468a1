export { findSandboxPrograms, type SandboxPrograms } from "./availability.js";
export { isAllowedHost } from "../net/index.js";
export { DEFAULT_DENY_READ } from "./paths.js";
export { isExcluded, type PolicyInput, resolvePolicy, type SandboxPolicy, type SandboxRule } from "./policy.js";
export { OsSandbox, type StartSandboxOptions } from "./sandbox.js";
export { mergeSandboxSettings, SandboxSettings } from "./settings.js";
export { type Check, diagnoseSandbox } from "./diagnose.js";
