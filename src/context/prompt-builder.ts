import { homedir } from "node:os";
import { resolve } from "node:path";
import { errorMessage, GyreError } from "../errors/index.js";
import { readGitInfo } from "./git-info.js";
import { findInstructionFiles, projectInstructionsSection } from "./project-instructions.js";
import { DEFAULT_SYSTEM_PROMPT, environmentSection, type SystemPromptSpec } from "./system-prompt.js";
import { type SkillSummary, skillsSection } from "./skills-section.js";
import { type TodoItem, todosSection } from "./todos-section.js";

/** Dynamic sections of the preset prompt; each is on unless set to `false`. */
export interface PromptSections {
  environment?: boolean;
  projectInstructions?: boolean;
  todos?: boolean;
  retrievedContext?: boolean;
}

/** What a {@link RetrieveContext} callback is asked with. */
export interface RetrieveContextRequest {
  cwd: string;
  todos: readonly TodoItem[];
  signal: AbortSignal | undefined;
}

/** Returns text to add to the prompt (e.g. from a search index), or nothing. */
export type RetrieveContext = (request: RetrieveContextRequest) => string | undefined | Promise<string | undefined>;

/** Where and how a {@link SystemPromptBuilder} builds. */
export interface SystemPromptBuilderOptions {
  /** The working directory: the environment section's, and where project instructions are looked for. */
  cwd: string;
  /** Default `process.platform`. */
  platform?: string;
  /** `YYYY-MM-DD` or a Date; default today (UTC). */
  date?: string | Date;
  /** Where `~/.gyre/AGENTS.md` and `~/.claude/CLAUDE.md` are looked for; `null` skips them. Default `os.homedir()`. */
  home?: string | null;
  sections?: PromptSections;
  retrieveContext?: RetrieveContext;
  /** The skills the model may load with the Skill tool: listed by name and description after the instructions. */
  skills?: readonly SkillSummary[];
}

/** What changes between builds: the plan, and the signal a retrieval should stop with. */
export interface BuildPromptInput {
  /** The session's task list (TodoWrite). */
  todos?: readonly TodoItem[];
  signal?: AbortSignal;
}

/** Builds the system prompt for each model call. */
export interface PromptBuilder {
  build(spec: SystemPromptSpec, input?: BuildPromptInput): Promise<string>;
}

/**
 * The default `PromptBuilder`. A literal string spec is returned exactly. The preset is, in
 * order: Gyre's prompt, environment (cwd, git, platform, date), project instructions, skills,
 * `append`, retrieved context, todos — the parts that change most come last, so the
 * start of the prompt stays cacheable. Environment and instruction files are read once per
 * builder (the first `build`); retrieved context and todos on every call.
 */
export class SystemPromptBuilder implements PromptBuilder {
  readonly #options: SystemPromptBuilderOptions;
  #stable: Promise<string[]> | undefined;

  constructor(options: SystemPromptBuilderOptions) {
    this.#options = { ...options, cwd: resolve(options.cwd) };
  }

  async build(spec: SystemPromptSpec, input: BuildPromptInput = {}): Promise<string> {
    if (typeof spec === "string") return spec;
    this.#stable ??= this.#stableSections();
    const sections = [DEFAULT_SYSTEM_PROMPT, ...(await this.#stable)];
    const skills = skillsSection(this.#options.skills ?? []);
    if (skills) sections.push(skills);
    if (spec?.append) sections.push(spec.append);
    const todos = input.todos ?? [];
    const retrieved = this.#enabled("retrievedContext") ? await this.#retrieve(todos, input.signal) : undefined;
    if (retrieved) sections.push(`<retrieved-context>\n${retrieved}\n</retrieved-context>`);
    const todoText = this.#enabled("todos") ? todosSection(todos) : undefined;
    if (todoText) sections.push(todoText);
    return sections.join("\n\n");
  }

  async #stableSections(): Promise<string[]> {
    const { cwd } = this.#options;
    const wantEnvironment = this.#enabled("environment");
    const wantInstructions = this.#enabled("projectInstructions");
    if (!wantEnvironment && !wantInstructions) return [];
    const git = await readGitInfo(cwd);
    const sections: string[] = [];
    if (wantEnvironment) {
      sections.push(
        environmentSection({
          cwd,
          platform: this.#options.platform ?? process.platform,
          date: formatDate(this.#options.date ?? new Date()),
          isGitRepo: git !== undefined,
          ...(git?.branch !== undefined && { gitBranch: git.branch }),
          ...(git?.detachedAt !== undefined && { gitBranch: `HEAD detached at ${git.detachedAt}` }),
        }),
      );
    }
    if (wantInstructions) {
      const home = this.#options.home === undefined ? homedir() : this.#options.home;
      const files = await findInstructionFiles({ cwd, repoRoot: git?.root, home: home ?? undefined });
      const text = projectInstructionsSection(files);
      if (text) sections.push(text);
    }
    return sections;
  }

  async #retrieve(todos: readonly TodoItem[], signal: AbortSignal | undefined): Promise<string | undefined> {
    const retrieve = this.#options.retrieveContext;
    if (!retrieve) return undefined;
    try {
      const text = await retrieve({ cwd: this.#options.cwd, todos, signal });
      return text?.trim() || undefined;
    } catch (error) {
      throw new GyreError("hook_error", `The retrieveContext callback failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }

  #enabled(section: keyof PromptSections): boolean {
    return this.#options.sections?.[section] !== false;
  }
}

function formatDate(date: string | Date): string {
  return typeof date === "string" ? date : date.toISOString().slice(0, 10);
}
