import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import ignore from "ignore";
import { glob } from "tinyglobby";

/** At most this many files are offered for `@` completion (a huge tree must not stall the prompt). */
const MAX_FILES = 20_000;
/** Folders never crawled when git does not list the files. */
const SKIPPED = ["**/.git/**", "**/node_modules/**"];

/**
 * The files of the project, relative to cwd and `/`-separated, with their folders (ending
 * in `/`), for `@path` completion. Git lists them when cwd is in a work tree (tracked and
 * untracked files, without what .gitignore ignores); elsewhere a crawl skips `.git`,
 * `node_modules` and what the top `.gitignore` names.
 */
export async function listProjectPaths(cwd: string): Promise<string[]> {
  const files = (await gitFiles(cwd)) ?? (await crawledFiles(cwd));
  return withFolders(files.slice(0, MAX_FILES));
}

function gitFiles(cwd: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      // Nothing of the repository's config may run here: a sandboxed background command may have planted it.
      [
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "ls-files",
        "--cached",
        "--others",
        "--exclude-standard",
        "-z",
      ],
      { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 5000 },
      (error, stdout) => resolve(error ? undefined : stdout.split("\0").filter(Boolean)),
    );
  });
}

async function crawledFiles(cwd: string): Promise<string[]> {
  const rules = await readFile(join(cwd, ".gitignore"), "utf8").catch(() => "");
  const ignored = ignore().add(rules);
  const files = await glob("**/*", { cwd, ignore: SKIPPED, onlyFiles: true, dot: true, deep: 12 }).catch(
    () => [] as string[],
  );
  return files.filter((file) => !ignored.ignores(file)).sort();
}

/** The files and every folder above them (`src/`, `src/tui/`), each once, folders first. */
export function withFolders(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split("/");
    for (let depth = 1; depth < parts.length; depth++) folders.add(`${parts.slice(0, depth).join("/")}/`);
  }
  return [...[...folders].sort(), ...files];
}
