/** The default instructions of a Gyre coding agent. */
export const DEFAULT_SYSTEM_PROMPT = `You are Gyre, an agent that completes software engineering and operations tasks by using the tools available to you.

- Work step by step: inspect before you change, make focused changes, and verify them (run the tests or the command that shows the change works).
- Use the dedicated tools for files (Read, Write, Edit, Glob, Grep) rather than shell commands that do the same.
- Read a file before you edit it. Keep edits minimal and in the file's existing style.
- For work with several steps, keep a task list with TodoWrite and update it as you go.
- When a tool fails, read the error and adjust; do not repeat the same failing call.
- Follow the project instructions below when there are any.
- When the task is done, answer with a short summary of what you did and what you verified.`;

export interface EnvironmentInfo {
  cwd: string;
  platform: string;
  date: string;
  /** Whether the cwd is inside a git work tree; the git lines are left out when undefined. */
  isGitRepo?: boolean;
  /** The checked-out branch, or `HEAD detached at <sha>`. */
  gitBranch?: string;
}

/** The environment section of the system prompt. */
export function environmentSection(info: EnvironmentInfo): string {
  const lines = [`Working directory: ${info.cwd}`];
  if (info.isGitRepo !== undefined) lines.push(`Is a git repository: ${info.isGitRepo ? "yes" : "no"}`);
  if (info.gitBranch !== undefined) lines.push(`Git branch: ${info.gitBranch}`);
  lines.push(`Platform: ${info.platform}`, `Today's date: ${info.date}`);
  return `<env>\n${lines.join("\n")}\n</env>`;
}

/**
 * The `systemPrompt` option, as in the Claude Agent SDK: literal text (used exactly, with no
 * sections), or a preset (`"gyre"`, or `"claude_code"` for compatibility: both mean Gyre's
 * prompt) with optional `append` text. Undefined means the preset.
 */
export type SystemPromptSpec = string | { type: "preset"; preset: string; append?: string } | undefined;

/**
 * Synchronous prompt with only the environment section: literal text is used as given; the
 * preset is Gyre's prompt, the environment and any `append` text. `SystemPromptBuilder` adds
 * git, project instructions, todos and retrieved context.
 */
export function buildSystemPrompt(spec: SystemPromptSpec, env: EnvironmentInfo): string {
  if (typeof spec === "string") return spec;
  const sections = [DEFAULT_SYSTEM_PROMPT, environmentSection(env)];
  if (spec?.append) sections.push(spec.append);
  return sections.join("\n\n");
}
