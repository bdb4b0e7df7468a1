import { existsSync, readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** A verdict of ignore rules, overrides or type filters, as ripgrep's `ignore` crate has them. */
export type Verdict = "ignore" | "whitelist" | "none";

interface Frame {
  dir: string;
  rules: Ignore;
}

/**
 * The ignore files in force at one folder of a walk: `.gitignore` (only inside a git
 * repository, with `.git/info/exclude` at its root), then `.ignore`, then `.rgignore`, each
 * later one overriding the earlier, deeper folders overriding shallower ones — ripgrep's
 * precedence. The global git excludes file is not read.
 */
export class IgnoreRules {
  readonly #frames: readonly Frame[];
  /** Whether the folder is inside a git repository, so `.gitignore` files count. */
  readonly inGitRepo: boolean;

  private constructor(frames: readonly Frame[], inGitRepo: boolean) {
    this.#frames = frames;
    this.inGitRepo = inGitRepo;
  }

  /**
   * The rules above `root` (from its parent folders). A parent's file that excludes `root`
   * itself is left out: the root was asked for by name, and ripgrep searches it.
   */
  static above(root: string): IgnoreRules {
    const ancestors: string[] = [];
    for (let dir = dirname(root); ; dir = dirname(dir)) {
      ancestors.unshift(dir);
      if (dirname(dir) === dir) break;
    }
    let rules = new IgnoreRules([], false);
    for (const dir of ancestors) {
      const names = new Set<string>();
      for (const name of [".git", ".gitignore", ".ignore", ".rgignore"]) {
        if (existsSync(join(dir, name))) names.add(name);
      }
      const next = rules.enter(dir, names);
      const frame = next.#frames.at(-1);
      if (frame && frame.dir === dir && frame.rules.test(`${root.slice(prefixLength(dir))}/`).ignored) {
        rules = new IgnoreRules(rules.#frames, next.inGitRepo);
      } else {
        rules = next;
      }
    }
    return rules;
  }

  /** The rules inside folder `dir`, given the names of its entries. */
  enter(dir: string, names: ReadonlySet<string>): IgnoreRules {
    const inGitRepo = this.inGitRepo || names.has(".git");
    const files: string[] = [];
    if (names.has(".git")) files.push(join(dir, ".git", "info", "exclude"));
    if (inGitRepo && names.has(".gitignore")) files.push(join(dir, ".gitignore"));
    if (names.has(".ignore")) files.push(join(dir, ".ignore"));
    if (names.has(".rgignore")) files.push(join(dir, ".rgignore"));
    const lines = files.map(readOrEmpty).join("\n");
    if (lines.trim() === "") {
      return inGitRepo === this.inGitRepo ? this : new IgnoreRules(this.#frames, inGitRepo);
    }
    return new IgnoreRules(
      [...this.#frames, { dir, rules: ignore({ allowRelativePaths: true }).add(lines) }],
      inGitRepo,
    );
  }

  /** The verdict for an absolute path: the deepest folder whose rules decide wins. */
  match(path: string, isDir: boolean): Verdict {
    for (let i = this.#frames.length - 1; i >= 0; i--) {
      const frame = this.#frames[i]!;
      const relative = path.slice(prefixLength(frame.dir)) + (isDir ? "/" : "");
      const result = frame.rules.test(relative);
      if (result.ignored) return "ignore";
      if (result.unignored) return "whitelist";
    }
    return "none";
  }
}

function prefixLength(dir: string): number {
  return dir.endsWith(sep) ? dir.length : dir.length + 1;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
