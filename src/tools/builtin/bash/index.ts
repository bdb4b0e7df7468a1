import type { AnyTool } from "../../tool.js";
import type { BashToolsOptions } from "./bash-options.js";
import { bashOutputTool } from "./bash-output-tool.js";
import { bashTool } from "./bash-tool.js";
import { killShellTool } from "./kill-shell-tool.js";

export type { BashToolsOptions } from "./bash-options.js";
export { passedVariables } from "./shell-environment.js";
export type { CommandSandbox, SandboxViolation, SandboxWatch } from "./command-sandbox.js";

/** Bash, BashOutput and KillShell, sharing the session's background shells. */
export function bashTools(options: BashToolsOptions = {}): AnyTool[] {
  return [bashTool(options), bashOutputTool(), killShellTool()];
}
