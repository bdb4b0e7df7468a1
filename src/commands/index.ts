export {
  commandName,
  expandCommand,
  type LoadedUserCommands,
  loadPluginCommands,
  loadUserCommands,
  parseUserCommand,
  type UserCommand,
  typedCommand,
  type UserCommandSources,
} from "./user-commands.js";
export { SlashCommandExpander, type SlashCommandSources } from "./expand-prompt.js";
