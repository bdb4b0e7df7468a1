import { type Dirent, readdir, readdirSync } from "node:fs";
import { modifiedTime } from "./glob-order.js";
import { type GlobPlan, planGlob } from "./glob-pattern.js";

export interface CrawlOptions {
  /** Stops the walk; what was found so far is returned, as tinyglobby does. */
  signal?: AbortSignal;
  /** Also read each match's modification time (for newest-first order). */
  modifiedTimes?: boolean;
  /** How long folders are read synchronously before the walk goes asynchronous (default 2 ms). */
  syncBudgetMs?: number;
  /**
   * Whether to descend into a folder (absolute, ending in `/`); false skips it and all it holds
   * (one the permission rules hide entirely).
   */
  mayEnter?: (folder: string) => boolean;
}

export interface CrawlResult {
  /** The matching files, relative to the search root, `/`-separated, in no set order. */
  paths: string[];
  /** Each path's `mtimeMs` (0 if it cannot be read) when `modifiedTimes` was asked for, else empty. */
  times: number[];
}

const DEFAULT_SYNC_BUDGET_MS = 2;
const DIRENTS = { withFileTypes: true } as const;

/**
 * The files under the folder `root` (absolute, normalised) that `pattern` matches, with the
 * folders named in `skipped` ignored unless the pattern names them: the same set tinyglobby
 * finds with `globOptions`. Returns `undefined` when the pattern needs tinyglobby itself
 * (see `planGlob`).
 *
 * It walks the tree as tinyglobby's crawler (fdir) does — files only, symlinks skipped,
 * unreadable folders skipped, from the pattern's static base — with the same decisions but
 * cheaper tests (see `planGlob`), and reads folders in two phases:
 * - synchronously for the first `syncBudgetMs`: a small tree is done before a single
 *   thread-pool round trip per folder level would have been paid;
 * - then asynchronously, each folder read as soon as it is found, with the matches'
 *   times read between rounds of finished reads, once those have queued their subfolders:
 *   the main thread reads times while the thread pool reads folders. fdir has no hook for
 *   that; it is why this walk is our own and not fdir's.
 */
export function crawlGlob(
  pattern: string,
  root: string,
  skipped: readonly string[],
  options: CrawlOptions = {},
): Promise<CrawlResult> | undefined {
  const plan = planGlob(pattern, skipped);
  // tinyglobby strips backslashes from the folder it crawls; leave such roots to it.
  if (plan === undefined || root === "/" || root.includes("\\")) return undefined;
  const walk: Walk = {
    plan,
    root,
    signal: options.signal,
    modifiedTimes: options.modifiedTimes ?? false,
    mayEnter: options.mayEnter,
    result: { paths: [], times: [] },
  };
  const deadline = performance.now() + (options.syncBudgetMs ?? DEFAULT_SYNC_BUDGET_MS);
  const unread = readSynchronously(walk, `${root}/${plan.base}`, deadline);
  return unread.length === 0 ? Promise.resolve(walk.result) : readAsynchronously(walk, unread);
}

/** One crawl's settings and what it has found. */
interface Walk {
  plan: GlobPlan;
  root: string;
  signal: AbortSignal | undefined;
  modifiedTimes: boolean;
  mayEnter: ((folder: string) => boolean) | undefined;
  /** `result.times` trails `result.paths` until `readTimes` catches up. */
  result: CrawlResult;
}

/**
 * Read folders breadth first from `start` until all are read, the signal aborts or
 * `deadline` passes; returns the folders found but not read (none when stopped), a wide
 * front for the asynchronous phase to read in parallel.
 */
function readSynchronously(walk: Walk, start: string, deadline: number): string[] {
  const folders = [start];
  let next = 0;
  for (; next < folders.length && performance.now() < deadline; next++) {
    if (walk.signal?.aborted === true) return [];
    const folder = folders[next] as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, DIRENTS);
    } catch {
      continue; // gone or unreadable: skipped, as tinyglobby does
    }
    collect(walk, folder, entries, (subfolder) => folders.push(subfolder));
    readTimes(walk);
  }
  return folders.slice(next);
}

/** Read `folders` and every subfolder found under them, each as soon as it is found. */
function readAsynchronously(walk: Walk, folders: readonly string[]): Promise<CrawlResult> {
  return new Promise((resolve, reject) => {
    let pending = 0;
    let timesQueued = false;
    const catchUp = (): void => {
      timesQueued = false;
      readTimes(walk);
    };
    const visit = (folder: string): void => {
      pending++;
      readdir(folder, DIRENTS, (error, entries) => {
        // A folder gone or unreadable is skipped; after an abort nothing more is read.
        if (error === null && walk.signal?.aborted !== true) {
          try {
            collect(walk, folder, entries, visit);
          } catch (cause) {
            reject(cause);
          }
        }
        if (--pending === 0) {
          catchUp();
          resolve(walk.result);
        } else if (!timesQueued) {
          // After this round of finished reads has queued its subfolders.
          timesQueued = true;
          setImmediate(catchUp);
        }
      });
    };
    folders.forEach(visit);
  });
}

/**
 * Take a folder's entries (`folder` is its full path ending in "/"): matching files to the
 * result, subfolders that may hold matches to `found`.
 */
function collect(walk: Walk, folder: string, entries: Dirent[], found: (subfolder: string) => void): void {
  const { plan, result } = walk;
  const rootLength = walk.root.length + 1;
  const relative = folder.slice(rootLength);
  for (const entry of entries) {
    if (entry.isFile()) {
      const path = plan.matchFile(relative, entry.name);
      if (path !== undefined) result.paths.push(path);
    } else if (entry.isDirectory()) {
      const subfolder = `${folder}${entry.name}/`;
      if (plan.skipsFolder(entry.name, subfolder, rootLength)) continue;
      if (walk.mayEnter?.(subfolder) !== false) found(subfolder);
    }
  }
}

/** Read the modification times of the matches that have none yet, if they are wanted. */
function readTimes(walk: Walk): void {
  if (!walk.modifiedTimes) return;
  const { paths, times } = walk.result;
  while (times.length < paths.length) times.push(modifiedTime(`${walk.root}/${paths[times.length] as string}`));
}
