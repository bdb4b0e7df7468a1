import { realpathSync } from "node:fs";
import { basename, dirname, join, relative, isAbsolute } from "node:path";
import type { FileGuard } from "../tool.js";

/**
 * What a search (Grep, Glob) may report, by the run's permission rules (`ToolContext.files`):
 * a file's name or content only when the Read rules let the tool read it and its real path
 * lies inside the folder the permission check approved. Judged per file, after the search
 * found it, so that a rule on something inside the searched folder holds whatever the `path`,
 * `glob` or pattern of the call. Nothing is said about what was left out: a note that appears
 * only when a denied file matched would tell whether it holds the pattern.
 *
 * One guard per call: it remembers the real path of each folder it has seen.
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
    return this.#files?.mayRead(folder) ?? true;
  }

  /** Whether `file` (absolute, as the search reached it) may be named or shown in the output. */
  mayReport(file: string): boolean {
    const guard = this.#files;
    if (guard === undefined) return true;
    const approved = guard.approvedPath;
    if (approved !== undefined) {
      const real = this.#realPath(file);
      if (real === undefined || !isWithin(real, approved)) return false;
    }
    return guard.mayRead(file);
  }

  /**
   * The real path of a file a search found. The walks (ripgrep's and ours) skip symlinks below
   * the root, so it is the real path of its folder plus its name: one look-up per folder, not
   * per file. The root itself may be a link, and is resolved whole.
   */
  #realPath(file: string): string | undefined {
    if (file === this.#root) return realPathOrUndefined(file);
    const folder = dirname(file);
    if (!this.#realFolders.has(folder)) this.#realFolders.set(folder, realPathOrUndefined(folder));
    const real = this.#realFolders.get(folder);
    return real === undefined ? undefined : join(real, basename(file));
  }
}

function realPathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined; // gone since the search found it: nothing to report
  }
}

function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}
