import { type BigIntStats, lstatSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * Folders looked at per workspace directory and check, breadth first (the workspace directory
 * itself always): many more than a typical project has (node_modules aside, a few hundred),
 * few enough that a check at the bound stays short (docs/benchmarks.md has the cost per folder).
 */
export const MAX_WALKED_FOLDERS = 4000;
/**
 * Looked at (a `.git` or a repository's shape there counts) but not entered: installed packages
 * are no place someone runs git in, and they hold most of a JavaScript project's folders.
 */
const NOT_ENTERED = new Set(["node_modules"]);
/** A bare repository's entries: git takes a folder holding all three for a repository. */
const BARE_SHAPE = ["HEAD", "objects", "refs"];

/** What a folder holds that matters here, as of its last listing. */
interface Listing {
  /** The folder's inode and times (in nanoseconds) when it was listed. */
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** The folders in it, as full paths. */
  folders: string[];
  hasGit: boolean;
  bareShaped: boolean;
}

/** Where git could find a repository: a `.git` (folder, file or link) in `dir`, or `dir` itself shaped as a bare one. */
export interface RepositorySpot {
  dir: string;
  kind: "dot-git" | "bare";
}

/**
 * A bounded walk of the workspace that finds every `.git` and every folder shaped like a bare
 * repository, listing again only the folders whose inode or times changed since the last walk
 * (an entry added, removed or renamed changes its folder's times); the others cost one lstat.
 * Symbolic links are not followed; a `.git` is not entered (what is inside one is the
 * repository's business: see repository-safety.ts).
 */
export class WorkspaceWalk {
  readonly #roots: readonly string[];
  readonly #listings = new Map<string, Listing>();

  constructor(roots: readonly string[]) {
    this.#roots = roots;
  }

  /** The spots found now, the workspace directories' first; `truncated` when a bound stopped the walk. */
  spots(): { spots: RepositorySpot[]; truncated: boolean } {
    const seen = new Set<string>();
    const spots: RepositorySpot[] = [];
    let truncated = false;
    for (const root of this.#roots) {
      // Breadth first: a queue read from an index, so shallow folders are the ones always covered.
      const queue = [root];
      for (let at = 0; at < queue.length; at++) {
        const dir = queue[at] as string;
        const listing = this.#list(dir);
        if (!listing) continue;
        seen.add(dir);
        if (listing.hasGit) spots.push({ dir, kind: "dot-git" });
        if (listing.bareShaped) spots.push({ dir, kind: "bare" });
        if (dir !== root && NOT_ENTERED.has(path.basename(dir))) continue;
        for (const folder of listing.folders) {
          if (queue.length >= MAX_WALKED_FOLDERS) truncated = true;
          else queue.push(folder);
        }
      }
    }
    // Forget folders that are gone, so the cache does not grow with what commands removed.
    if (seen.size < this.#listings.size)
      for (const dir of this.#listings.keys()) if (!seen.has(dir)) this.#listings.delete(dir);
    return { spots, truncated };
  }

  #list(dir: string): Listing | undefined {
    const stats = lstatOrNone(dir);
    if (!stats?.isDirectory()) return undefined;
    const { ino, mtimeNs, ctimeNs } = stats;
    const cached = this.#listings.get(dir);
    if (cached && cached.ino === ino && cached.mtimeNs === mtimeNs && cached.ctimeNs === ctimeNs) return cached;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const names = new Set(entries.map((entry) => entry.name));
    const listing = {
      ino,
      mtimeNs,
      ctimeNs,
      hasGit: names.has(".git"),
      bareShaped: BARE_SHAPE.every((name) => names.has(name)),
      // A `.git` is never entered (the folders git keeps there are its own: hooks, modules, …), nor
      // one set aside (.git-sandboxed, gitlinks.ts): git uses neither unless someone works inside.
      folders: entries
        .filter((entry) => entry.isDirectory() && entry.name !== ".git" && !entry.name.startsWith(".git-sandboxed"))
        .map((entry) => path.join(dir, entry.name)),
    };
    this.#listings.set(dir, listing);
    return listing;
  }
}

/** lstat without throwing (a missing path, or a file where a folder of the path was). */
export function lstatOrNone(file: string): BigIntStats | undefined {
  try {
    return lstatSync(file, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
