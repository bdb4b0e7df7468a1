// What the interactive agent (src/tui) takes from the gyre command: the entry of a bundle and
// the provider keys it takes out of the environment, the argument parsing it shares with print
// mode, and the queue of prompts a running query reads. tui/ reaches cli/ only through here.
export { gyreCommand } from "./gyre-command.js";
export { cliPermissionHint } from "./permission-hint.js";
export { parseCommandArgs } from "./parse-command-args.js";
export { PromptQueue } from "./prompt-queue.js";
export { providerEnvironment, takeProviderKeys } from "./provider-keys.js";
export { takeBareResume } from "./resume-flag.js";
export { runEntry } from "./run-entry.js";
export { list, mcpServersOf, permissionMode, pluginDirs } from "./run-options.js";
