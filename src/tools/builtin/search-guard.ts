import { realpathSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import type { FileGuard } from "../tool.js";

/**
 * What a search (Grep, Glob) may report, by the run's permission rules (`ToolContext.files`):
 * a file's name or content only when the Read rules let the tool read it and its real path
 * lies inside the folder the permission check approved. Judged per file, after the search
 * found it, so that a rule on something inside the searched folder holds whatever the `path`,
 * `glob` or pattern of the call. Nothing is said about what was left out: a note that appears
 * only when a denied file matched would tell whether it holds the pattern.
 *
 * One guard per call: it resolves the search root once, when the first file is judged (after
 * the search), so a root swapped for a link since the permission check judged it is caught.
 * A folder below the root swapped for a link while the walk is in it is not: that needs a walk
 * that opens each folder without following links, which ripgrep does not offer.
 */
export class SearchGuard {
  readonly #files: FileGuard | undefined;
  readonly #root: string;
  readonly #realFolders = new Map<string, string | undefined>();

  /** `root`: the absolute search root as the call gave it (it may itself be a link). */
  constructor(files: FileGuard | undefined, root: string) {
    this.#files = files;
    this.#root = root;
  }

  /**
   * Whether a walk may descend into `folder` (absolute): not when a rule hides everything in it
   * (`Read(./secrets/**)`). Only saves work: each file found is still judged by `mayReport`.
   */
  mayEnter(folder: string): boolean {
    const guard = this.#files;
    if (guard === undefined) return true;
    const absolute = folder.length > 1 && folder.endsWith(sep) ? folder.slice(0, -1) : folder;
    const real = this.#realFile(absolute);
    return real !== undefined && guard.mayRead(absolute, { real });
  }

  /** Whether `file` (absolute, as the search reached it) may be named or shown in the output. */
  mayReport(file: string): boolean {
    const guard = this.#files;
    if (guard === undefined) return true;
    const real = this.#realFile(file);
    if (real === undefined) return false;
    const approved = guard.approvedPath;
    if (approved !== undefined && !isWithin(real, approved)) return false;
    return guard.mayRead(file, { real, isFile: true });
  }

  /**
   * The real path of a file a search found: the root's real path (resolved once: the root may
   * be a link) plus the file's path below it, since the walks (ripgrep's and ours) never follow
   * a link below the root. A file outside the root (a Glob pattern with `../`) is resolved
   * through its folder, once per folder.
   */
  #realFile(file: string): string | undefined {
    const root = this.#root;
    if (file === root) return this.#realFolder(root);
    const prefix = root.endsWith(sep) ? root : root + sep;
    if (file.startsWith(prefix)) {
      const realRoot = this.#realFolder(root);
      // Both are normalised: a slice and a concatenation, not path functions, for every file.
      return realRoot === undefined ? undefined : withName(realRoot, file.slice(prefix.length));
    }
    const folder = this.#realFolder(dirname(file));
    return folder === undefined ? undefined : join(folder, basename(file));
  }

  #realFolder(folder: string): string | undefined {
    if (!this.#realFolders.has(folder)) this.#realFolders.set(folder, realPathOrUndefined(folder));
    return this.#realFolders.get(folder);
  }
}

function realPathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined; // gone since the search found it: nothing to report
  }
}

function withName(folder: string, name: string): string {
  return folder.endsWith(sep) ? folder + name : folder + sep + name;
}

/** Whether `path` is `folder` or inside it (both absolute and normalised). */
function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}
