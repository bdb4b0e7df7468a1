import picomatch from "picomatch";
import { unknownTypeError } from "./errors.js";
import { typeGlobs } from "./file-types.js";
import type { IgnoreRules, Verdict } from "./ignore-rules.js";

interface Override {
  negated: boolean;
  dirOnly: boolean;
  /** Globs without a slash match the base name; others the whole display path. */
  basename: boolean;
  test: (path: string) => boolean;
}

/** An entry met by the walk, with the paths the rules need. */
export interface Entry {
  /** Absolute path. */
  path: string;
  /** Path relative to the cwd, as the model sees it (`--glob` matches against this). */
  display: string;
  name: string;
  isDir: boolean;
}

/**
 * Decides which entries a search visits, the way ripgrep does: `--glob` overrides first
 * (the last matching glob wins; with any positive glob, files matching none are skipped),
 * then ignore files, then `--type`, and hidden names last unless something whitelisted them.
 */
export class PathFilter {
  readonly #overrides: Override[];
  readonly #hasPositive: boolean;
  readonly #type: ((name: string) => boolean) | undefined;

  constructor(globs: readonly string[], type: string | undefined) {
    this.#overrides = globs.map(compileOverride);
    this.#hasPositive = this.#overrides.some((override) => !override.negated);
    if (type === undefined) {
      this.#type = undefined;
    } else {
      const patterns = typeGlobs(type);
      if (!patterns) throw unknownTypeError(type);
      this.#type = picomatch([...patterns], { dot: true });
    }
  }

  /** Whether the walk should visit (descend into, or search) `entry`. */
  accepts(entry: Entry, rules: IgnoreRules): boolean {
    const override = this.#override(entry);
    if (override !== "none") return override === "whitelist";
    let whitelisted = false;
    const ignored = rules.match(entry.path, entry.isDir);
    if (ignored === "ignore") return false;
    if (ignored === "whitelist") whitelisted = true;
    if (this.#type && !entry.isDir) {
      if (!this.#type(entry.name)) return false;
      whitelisted = true;
    }
    return whitelisted || !entry.name.startsWith(".");
  }

  #override(entry: Entry): Verdict {
    for (let i = this.#overrides.length - 1; i >= 0; i--) {
      const override = this.#overrides[i]!;
      if (override.dirOnly && !entry.isDir) continue;
      if (override.test(override.basename ? entry.name : entry.display)) {
        return override.negated ? "ignore" : "whitelist";
      }
    }
    return this.#hasPositive && !entry.isDir ? "ignore" : "none";
  }
}

function compileOverride(glob: string): Override {
  let pattern = glob;
  const negated = pattern.startsWith("!");
  if (negated) pattern = pattern.slice(1);
  const dirOnly = pattern.endsWith("/");
  if (dirOnly) pattern = pattern.slice(0, -1);
  const basename = !pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  return { negated, dirOnly, basename, test: picomatch(pattern, { dot: true }) };
}
