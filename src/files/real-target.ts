import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fsErrorCode } from "../errors/index.js";

/** Symlinks followed before giving up, as the kernel's own limit (`ELOOP`). */
const MAX_SYMLINKS = 40;

/**
 * The real path that writing to `path` would change: every symlink followed, including one at
 * the end that dangles (writing through it creates its target), and folders that do not exist
 * yet kept as named below the real path of the nearest one that does. This is how the permission
 * check resolves a path too, so a write can verify it lands where the check looked.
 */
export async function realTargetOf(path: string): Promise<string> {
  let target = resolve(path);
  for (let hops = 0; hops <= MAX_SYMLINKS; hops++) {
    target = join(await realFolderOf(dirname(target)), basename(target));
    let isLink: boolean;
    try {
      isLink = (await lstat(target)).isSymbolicLink();
    } catch (error) {
      const code = fsErrorCode(error);
      if (code === "ENOENT" || code === "ENOTDIR") return target;
      throw error;
    }
    if (!isLink) return target;
    target = resolve(dirname(target), await readlink(target));
  }
  throw Object.assign(new Error(`too many symbolic links at ${path}`), { code: "ELOOP" });
}

/** The real path of `folder`, or of its nearest existing ancestor with the rest appended. */
async function realFolderOf(folder: string): Promise<string> {
  try {
    return await realpath(folder);
  } catch {
    const parent = dirname(folder);
    if (parent === folder) return folder;
    return join(await realFolderOf(parent), basename(folder));
  }
}
