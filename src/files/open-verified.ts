import { constants, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { type FolderUse, HeldFolder } from "./held-folder.js";
import { pathChangedError } from "./path-changed.js";

export interface OpenVerifiedOptions {
  /** Open flags; `O_NOFOLLOW` is always added. Default: read-only and non-blocking (a FIFO never hangs the open). */
  flags?: number;
  /**
   * Sees what is at the path (its `lstat`, through the held folder) before it is opened, and
   * throws to refuse it: Read refuses devices and FIFOs without opening them.
   */
  accept?: (kind: Stats) => void;
}

/**
 * Opens the file at `realPath` (a real path: symlinks already followed, e.g. what a permission
 * check approved) so that what is opened is that file and nothing else, whatever another process
 * renames meanwhile: its folder is opened and verified first (see {@link HeldFolder}), then the
 * name is looked up in that folder without following a symlink. A path that no longer leads to
 * `realPath` is refused with a `GyreError` and nothing is read; fs errors (`ENOENT`, `EACCES`,
 * …) pass through as they are.
 */
export async function openVerified(
  realPath: string,
  use: FolderUse,
  options: OpenVerifiedOptions = {},
): Promise<FileHandle> {
  const folder = await HeldFolder.open(dirname(realPath), use);
  try {
    const name = basename(realPath);
    const kind = await folder.lstat(name);
    // A real path never ends in a symlink: one there now was put there after it was resolved.
    if (kind.isSymbolicLink()) throw pathChangedError(use, realPath, use.action);
    options.accept?.(kind);
    return await folder.openFile(name, options.flags ?? constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } finally {
    await folder.close();
  }
}
