import { readFile, realpath } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

/** File names read in every directory from the repository root down to the cwd. */
export const PROJECT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const;

/** User-wide instruction files, relative to the home directory. */
export const USER_INSTRUCTION_FILES = [".gyre/AGENTS.md", ".claude/CLAUDE.md"] as const;

/** Characters kept of one instruction file; longer files are cut with a note. */
const MAX_FILE_CHARS = 40_000;

export interface InstructionFile {
  path: string;
  content: string;
}

export interface FindInstructionsOptions {
  cwd: string;
  /** The repository root, when the cwd is in one; without it only the cwd itself is searched. */
  repoRoot?: string;
  /** The user's home directory; undefined skips the user-wide files. */
  home?: string;
}

/**
 * Instruction files in precedence order, most general first: the user's (`~/.gyre/AGENTS.md`,
 * `~/.claude/CLAUDE.md`), then `AGENTS.md` and `CLAUDE.md` of each directory from the repo
 * root down to the cwd. A file reached twice (a symlink, home inside the repo) and empty
 * files are skipped; unreadable files are skipped silently, as missing ones are.
 */
export async function findInstructionFiles(options: FindInstructionsOptions): Promise<InstructionFile[]> {
  const candidates: string[] = [];
  if (options.home !== undefined) for (const name of USER_INSTRUCTION_FILES) candidates.push(join(options.home, name));
  for (const dir of directoriesDown(options.cwd, options.repoRoot))
    for (const name of PROJECT_INSTRUCTION_FILES) candidates.push(join(dir, name));
  const seen = new Set<string>();
  const files: InstructionFile[] = [];
  for (const path of candidates) {
    const file = await readInstructionFile(path);
    if (!file) continue;
    const real = await realpath(path).catch(() => path);
    if (seen.has(real) || seen.has(file.content)) continue;
    seen.add(real);
    seen.add(file.content);
    files.push({ path, content: file.content });
  }
  return files;
}

/** Render instruction files as a system prompt section; undefined when there are none. */
export function projectInstructionsSection(files: readonly InstructionFile[]): string | undefined {
  if (files.length === 0) return undefined;
  const body = files.map((file) => `<file path="${file.path}">\n${file.content}\n</file>`).join("\n\n");
  return `<project-instructions>
Instructions from the user and the project. Follow them; where they differ, later (more specific) files take precedence over earlier ones.

${body}
</project-instructions>`;
}

/** The repo root, then each directory down to `cwd`; only `cwd` when it is outside the repo. */
function directoriesDown(cwd: string, repoRoot: string | undefined): string[] {
  const target = resolve(cwd);
  if (repoRoot === undefined) return [target];
  const root = resolve(repoRoot);
  const rel = relative(root, target);
  if (rel.startsWith("..") || resolve(root, rel) !== target) return [target];
  const dirs = [root];
  let current = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    current = join(current, part);
    dirs.push(current);
  }
  return dirs;
}

async function readInstructionFile(path: string): Promise<InstructionFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  const content = text.trim();
  if (content.length === 0) return undefined;
  if (content.length <= MAX_FILE_CHARS) return { path, content };
  return {
    path,
    content: `${content.slice(0, MAX_FILE_CHARS)}\n[... ${content.length - MAX_FILE_CHARS} characters cut; read ${path} for the rest]`,
  };
}
