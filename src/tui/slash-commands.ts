import { typedCommand, type UserCommand } from "../commands/index.js";

/** A prompt that starts with `/name`: the command and the rest of the line. */
export interface SlashCommand {
  name: string;
  args: string;
}

/** The slash commands the terminal agent knows, with what `/help` says of each. */
export const SLASH_COMMANDS: Record<string, string> = {
  help: "this list",
  clear: "start a new session (the current one stays stored)",
  resume: "pick a recent session of this folder and go on with it",
  model: "show the model, or use another one: /model provider/model-id",
  cost: "what this session has cost so far",
  compact: "summarise the conversation to free context: /compact [instructions]",
  permissions: "the allow, ask and deny rules in effect, and the files they come from",
  hooks: "the hooks configured, by event",
  mcp: "the MCP servers, their status and tools",
  plugins: "the plugins loaded (--plugin-dir) and what each brings",
  export: "write the conversation as Markdown: /export [file]",
  init: "ask the agent to write AGENTS.md from a look at this project",
  exit: "quit (also Ctrl+D on an empty prompt, or Ctrl+C twice)",
};

/**
 * The command of a prompt, or undefined when it is not one (`/usr/bin is…` stays a prompt).
 * `isUserCommand` says whether a name is one of the person's own commands (`/folder:name`);
 * a built-in command of the same name wins.
 */
export function parseSlashCommand(
  prompt: string,
  isUserCommand: (name: string) => boolean = () => false,
): SlashCommand | undefined {
  const typed = typedCommand(prompt);
  if (!typed || !(typed.name in SLASH_COMMANDS || isUserCommand(typed.name))) return undefined;
  return typed;
}

/** A command that completion offers: its name (without `/`) and what it does. */
export interface CommandEntry {
  name: string;
  description: string;
}

/** Every command, built-in ones first, then the person's own (with their argument hint and origin). */
export function commandEntries(userCommands: Iterable<UserCommand>, skills: Iterable<string> = []): CommandEntry[] {
  const entries = Object.entries(SLASH_COMMANDS).map(([name, description]) => ({ name, description }));
  const taken = new Set(Object.keys(SLASH_COMMANDS));
  for (const command of userCommands) {
    if (taken.has(command.name)) continue;
    taken.add(command.name);
    const hint = command.argumentHint ? ` ${command.argumentHint}` : "";
    entries.push({ name: command.name, description: `${command.description}${hint} (${command.scope})` });
  }
  // The run's skills (init's `skills`): `/name args` loads one, a command of the same name first.
  for (const skill of skills)
    if (!taken.has(skill)) entries.push({ name: skill, description: "load the skill (skill)" });
  return entries;
}

export function helpText(userCommands: Iterable<UserCommand> = []): string {
  const entries = commandEntries(userCommands);
  const width = Math.max(9, ...entries.map((entry) => entry.name.length));
  const builtin = entries.filter((entry) => entry.name in SLASH_COMMANDS);
  const own = entries.filter((entry) => !(entry.name in SLASH_COMMANDS));
  const line = (entry: CommandEntry) => `  /${entry.name.padEnd(width)} ${entry.description}`;
  return [
    "Commands:",
    ...builtin.map(line),
    ...(own.length > 0 ? ["Your commands (.claude/commands, .gyre/commands, plugins):", ...own.map(line)] : []),
    "Keys: Enter sends · \\ then Enter or Shift+Enter: new line · Up/Down: history · Esc: interrupt",
    "      Tab: complete /commands and @files · Shift+Tab: permission mode · Ctrl+C twice or Ctrl+D: quit",
    "      @path attaches a file · !command runs a shell command and adds its output to the next prompt",
  ].join("\n");
}
