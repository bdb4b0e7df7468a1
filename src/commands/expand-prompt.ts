import { findTrustedFolder } from "../settings/index.js";
import { loadSkill, type Skill } from "../skills/index.js";
import {
  expandCommand,
  loadPluginCommands,
  loadUserCommands,
  typedCommand,
  type UserCommand,
} from "./user-commands.js";

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

  /** The prompt `text` stands for: its command's or skill's when it names one, else `text` as typed. */
  async expand(text: string): Promise<string> {
    const typed = typedCommand(text);
    if (!typed) return text;
    this.#commands ??= this.#load();
    const { name, args } = typed;
    const command = (await this.#commands).get(name);
    if (command) return expandCommand(command.body, args);
    const skill = this.#sources.skills?.find((offered) => offered.name === name);
    // A SKILL.md gone since the run started: the prompt goes as typed, and the Skill tool says why if called.
    return skill ? await loadSkill(skill, args).catch(() => text) : text;
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
