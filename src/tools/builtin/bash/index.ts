import type { AnyTool } from "../../tool.js";
import type { BashToolsOptions } from "./bash-options.js";
import { bashOutputTool } from "./bash-output-tool.js";
import { bashTool } from "./bash-tool.js";
import { killShellTool } from "./kill-shell-tool.js";

export {
  type BackgroundShell,
  BackgroundShells,
  backgroundShellsOf,
  type ShellStatus,
} from "./background-shells.js";
export {
  BASH_MAX_OUTPUT_CHARS,
  type BashToolsOptions,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
} from "./bash-options.js";
export { BashOutputInput, bashOutputTool } from "./bash-output-tool.js";
export { BashInput, bashTool } from "./bash-tool.js";
export { KillShellInput, killShellTool } from "./kill-shell-tool.js";
export { isProcessAlive, type StopReport, stopCommandProcesses } from "./process-tree.js";
export { removeStaleSpillDirectories, spillRoot } from "./spill-directory.js";
export { MARKER_VARIABLE } from "./tool-call-marker.js";

/** Bash, BashOutput and KillShell, sharing the session's background shells. */
export function bashTools(options: BashToolsOptions = {}): AnyTool[] {
  return [bashTool(options), bashOutputTool(), killShellTool()];
}
