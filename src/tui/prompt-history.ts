import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gyreDataFolder, projectOf } from "../sessions/index.js";

/** How many prompts a project's history keeps (older ones are dropped on load). */
const KEPT = 500;

/**
 * The prompts typed in one project, oldest first, persisted as JSON lines in Gyre's home
 * (`$GYRE_HOME`, else `$XDG_DATA_HOME/gyre`, else `~/.gyre`) under `history/<project hash>.jsonl`:
 * never inside the project, so it shows neither in `git status` nor in the agent's searches.
 */
export class PromptHistory {
  readonly #file: string;
  #entries: string[] = [];

  constructor(cwd: string, env: NodeJS.ProcessEnv = process.env) {
    const project = createHash("sha256").update(projectOf(cwd)).digest("hex").slice(0, 24);
    this.#file = join(gyreDataFolder(env), "history", `${project}.jsonl`);
  }

  get entries(): readonly string[] {
    return this.#entries;
  }

  /** Reads the stored prompts; a missing or damaged file is an empty history. */
  async load(): Promise<void> {
    const text = await readFile(this.#file, "utf8").catch(() => "");
    const entries: string[] = [];
    for (const line of text.split("\n")) {
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === "string") entries.push(value);
      } catch {
        // A torn last line (a crash mid-append) loses that prompt only.
      }
    }
    this.#entries = entries.slice(-KEPT);
  }

  /** Adds a prompt (not a repeat of the last one) and appends it to the file. */
  async add(prompt: string): Promise<void> {
    if (prompt.trim() === "" || this.#entries.at(-1) === prompt) return;
    this.#entries.push(prompt);
    await mkdir(dirname(this.#file), { recursive: true, mode: 0o700 });
    await appendFile(this.#file, `${JSON.stringify(prompt)}\n`, { mode: 0o600 });
  }
}
