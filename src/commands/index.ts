export {
  commandName,
  expandCommand,
  type LoadedUserCommands,
  loadPluginCommands,
  loadUserCommands,
  parseUserCommand,
  type UserCommand,
  type UserCommandSources,
} from "./user-commands.js";
export { expandSlashCommand, SlashCommandExpander, type SlashCommandSources } from "./expand-prompt.js";
