import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/**
 * `.env*` files outside the workspace are unreadable by default (they hold keys). Finding every
 * one on the disk would mean walking it, so Gyre looks where such a file realistically sits and a
 * command would look for it: directly in the home folder and in every folder above each workspace
 * directory (`~/code/.env` over `~/code/project`, `/srv/.env`). Limits, said in docs/sandbox.md too: a
 * `.env` of another project (`~/other/.env`) or deeper in an unrelated tree stays readable (name
 * it in `filesystem.denyRead`); a `.env*` that is a folder (Python's venv is often called `.env`)
 * is not hidden; folders under /tmp and /run are skipped, the sandbox shows those empty anyway.
 */
export function envFileFolders(workspace: readonly string[], home: string): string[] {
  const inWorkspace = (dir: string) => workspace.some((root) => dir === root || dir.startsWith(`${root}${path.sep}`));
  const hidden = (dir: string) => ["/tmp", "/run"].some((root) => dir === root || dir.startsWith(`${root}/`));
  const folders = [home, ...workspace.flatMap(ancestors)].map((dir) => path.resolve(dir));
  return [...new Set(folders)].filter((dir) => !inWorkspace(dir) && !hidden(dir));
}

function ancestors(dir: string): string[] {
  const list: string[] = [];
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    list.push(current);
    if (path.dirname(current) === current) return list;
  }
}

/**
 * A change of a folder's listing moves its mtime, but timestamps are coarse (a clock tick, whole
 * seconds on some file systems): a file made in the same tick as a listing would not move it. A
 * folder changed this recently before it was listed is listed again at the next command.
 */
const SETTLE_MS = 2000;

/** When a listable folder's entries cannot be read: the usual names, checked one by one. */
const USUAL_NAMES = [".env", ".env.local", ".env.development", ".env.production", ".env.test", ".envrc"];

interface Listing {
  mtimeMs: number;
  listedAt: number;
  files: string[];
}

/**
 * The `.env*` files now present in the folders, each folder listed again only when its mtime
 * moved: per command, one stat per folder. Files that appear during the run are hidden from the
 * next command on; ones that disappear stop being mounted over (bubblewrap cannot mount over a
 * missing file).
 */
export class EnvFileWatch {
  readonly #folders: readonly string[];
  readonly #exempt: (file: string) => boolean;
  readonly #listings = new Map<string, Listing>();
  #files: string[] = [];

  /** `exempt`: real paths that stay readable (a `.env` linked into the workspace). */
  constructor(folders: readonly string[], exempt: (file: string) => boolean) {
    this.#folders = folders;
    this.#exempt = exempt;
    this.refresh();
  }

  /** The files as of the last refresh (real paths). */
  get files(): readonly string[] {
    return this.#files;
  }

  /** Look again; true when the set of files changed. */
  refresh(): boolean {
    let changed = false;
    for (const folder of this.#folders) {
      const mtimeMs = statSync(folder, { throwIfNoEntry: false })?.mtimeMs ?? -1;
      const known = this.#listings.get(folder);
      if (known && known.mtimeMs === mtimeMs && known.listedAt - mtimeMs > SETTLE_MS) continue;
      const listedAt = Date.now();
      const files = mtimeMs < 0 ? [] : this.#list(folder);
      if (!known || known.files.join("\0") !== files.join("\0")) changed = true;
      this.#listings.set(folder, { mtimeMs, listedAt, files });
    }
    if (changed) this.#files = [...new Set([...this.#listings.values()].flatMap((listing) => listing.files))];
    return changed;
  }

  #list(folder: string): string[] {
    let names: string[];
    try {
      names = readdirSync(folder).filter((name) => name.startsWith(".env"));
    } catch {
      // Searchable but not listable (mode 0711): a command could still open a file it names.
      names = USUAL_NAMES.filter((name) => existsSync(path.join(folder, name)));
    }
    return names.flatMap((name) => {
      const file = path.join(folder, name);
      if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return [];
      const real = realOrSame(file);
      return this.#exempt(real) ? [] : [real];
    });
  }
}

function realOrSame(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}
