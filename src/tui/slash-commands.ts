/** A prompt that starts with `/name`: the command and the rest of the line. */
export interface SlashCommand {
  name: string;
  args: string;
}

/** The slash commands the terminal agent knows, with what `/help` says of each. */
export const SLASH_COMMANDS: Record<string, string> = {
  help: "this list",
  clear: "start a new session (the current one stays stored)",
  model: "show the model, or use another one: /model provider/model-id",
  cost: "what this session has cost so far",
  compact: "summarise the conversation to free context: /compact [instructions]",
  exit: "quit (also Ctrl+D on an empty prompt, or Ctrl+C twice)",
};

/** The command of a prompt, or undefined when it is not one (`/usr/bin is…` stays a prompt). */
export function parseSlashCommand(prompt: string): SlashCommand | undefined {
  const match = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!match?.[1] || !(match[1] in SLASH_COMMANDS)) return undefined;
  return { name: match[1], args: (match[2] ?? "").trim() };
}

export function helpText(): string {
  const lines = Object.entries(SLASH_COMMANDS).map(([name, what]) => `  /${name.padEnd(9)} ${what}`);
  return [
    "Commands:",
    ...lines,
    "Keys: Enter sends · \\ then Enter or Shift+Enter: new line · Up/Down: history · Esc: interrupt",
    "      Shift+Tab: permission mode · Ctrl+C twice or Ctrl+D: quit",
  ].join("\n");
}
