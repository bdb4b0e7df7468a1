import { findTrustedFolder } from "../settings/index.js";
import { loadSkill, type Skill } from "../skills/index.js";
import { expandCommand, loadPluginCommands, loadUserCommands, type UserCommand } from "./user-commands.js";

/** Where a run's slash commands come from: the folders its settings sources read, and its plugins. */
export interface SlashCommandSources {
  cwd: string;
  home: string;
  /** `settingSources` of the run: `user` reads the home folder's commands, `project` the cwd's. */
  settingSources: readonly string[];
  /** Leave out the project's commands unless the person trusted the folder (`gyre trust`). */
  requireTrust?: boolean;
  plugins: ReadonlyArray<{ commands: ReadonlyArray<{ name: string; file: string }> }>;
  /** The skills the run offers: `/name` loads one, as Claude Code's skills are slash commands too. */
  skills?: readonly Skill[];
}

/** `/name` and what follows it, as typed. */
const TYPED_COMMAND = /^\/([A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\s+([\s\S]*))?$/;

/**
 * A prompt that names a slash command of the run (`/review src/a.ts`, `/kit:hello Ada`) becomes
 * the prompt the command's file holds, its arguments put in, as Claude Code's print mode and the
 * Claude Agent SDK send it; one that names a skill the run offers (`/pdf report.pdf`) becomes the
 * skill's instructions with its folder and the arguments, as the Skill tool returns them (a
 * command of the same name wins). Any other prompt (an unknown `/name` too) goes as it is. The
 * command files are read at the first prompt that looks like a command, so other runs never read them.
 */
export class SlashCommandExpander {
  readonly #sources: SlashCommandSources;
  #commands: Promise<Map<string, UserCommand>> | undefined;

  constructor(sources: SlashCommandSources) {
    this.#sources = sources;
  }

  /** The command's prompt, or undefined when `text` does not name one. */
  async expand(text: string): Promise<string | undefined> {
    const typed = TYPED_COMMAND.exec(text.trim());
    if (!typed?.[1]) return undefined;
    this.#commands ??= this.#load();
    const args = typed[2]?.trim() ?? "";
    const command = (await this.#commands).get(typed[1]);
    if (command) return expandCommand(command.body, args);
    const skill = this.#sources.skills?.find((offered) => offered.name === typed[1]);
    // A SKILL.md gone since the run started: the prompt goes as typed, and the Skill tool says why if called.
    return skill ? await loadSkill(skill, args).catch(() => undefined) : undefined;
  }

  async #load(): Promise<Map<string, UserCommand>> {
    const { cwd, home, settingSources, requireTrust, plugins } = this.#sources;
    const scopes: Array<"user" | "project"> = [];
    if (settingSources.includes("user")) scopes.push("user");
    if (settingSources.includes("project") && (requireTrust !== true || (await findTrustedFolder(cwd, { home })))) {
      scopes.push("project");
    }
    // Plugins' commands are namespaced (`kit:hello`), so they never clash with the person's own.
    const [own, fromPlugins] = await Promise.all([
      scopes.length > 0 ? loadUserCommands({ cwd, home, scopes }) : undefined,
      plugins.length > 0 ? loadPluginCommands(plugins) : undefined,
    ]);
    return new Map([...(own?.commands ?? []), ...(fromPlugins?.commands ?? [])]);
  }
}

/** `text` expanded by `expander` when it names a command; else as it is. */
export async function expandSlashCommand(expander: SlashCommandExpander, text: string): Promise<string> {
  return (await expander.expand(text)) ?? text;
}
