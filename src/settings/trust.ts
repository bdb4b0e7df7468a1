import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, realpath, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { errorMessage, GyreError } from "../errors/index.js";
import { gyreDataFolder } from "../sessions/index.js";

/** A folder the person trusted (a real path); its subfolders are trusted with it. */
export const TrustedFolder = z.object({
  // A relative path would be read against whatever folder Gyre runs in: refused.
  path: z.string().refine((value) => path.isAbsolute(value), "must be an absolute path"),
  trustedAt: z.string(),
});
export type TrustedFolder = z.infer<typeof TrustedFolder>;

const TrustFile = z.object({ version: z.literal(1), folders: z.array(TrustedFolder) });

export interface TrustStoreOptions {
  /**
   * The folder that holds `trusted-folders.json`. Default: Gyre's data folder, where it writes
   * everything else (`$GYRE_HOME`, else `$XDG_DATA_HOME/gyre`, else `~/.gyre`); `<home>/.gyre`
   * when `home` is given (tests).
   */
  dataFolder?: string;
  /**
   * Home directory; defaults to the OS home. No folder that contains it can be trusted, and its
   * `.gyre/trusted-folders.json` (where Gyre kept the record before it honoured `$GYRE_HOME`)
   * is read while the data folder has no record: the first change moves the list there.
   */
  home?: string;
  /** Clock for `trustedAt` (inject it in tests). */
  now?: () => Date;
}

/**
 * The trust record: `trusted-folders.json` in Gyre's data folder (see
 * {@link TrustStoreOptions.dataFolder}). Only the person's own config, never a project's.
 */
export function trustStorePath(options: TrustStoreOptions = {}): string {
  const folder =
    options.dataFolder ?? (options.home === undefined ? gyreDataFolder() : path.join(options.home, ".gyre"));
  return path.join(folder, TRUST_FILE);
}

const TRUST_FILE = "trusted-folders.json";

/** Where the record was kept before it moved to the data folder, when that is another file. */
function earlierStorePath(options: TrustStoreOptions): string | undefined {
  const earlier = path.join(options.home ?? homedir(), ".gyre", TRUST_FILE);
  return earlier === trustStorePath(options) ? undefined : earlier;
}

/**
 * The trusted folders, in the order they were trusted. A missing record is an empty list; a
 * record only in the home folder's `.gyre/` (from before the data folder rule) still counts.
 */
export async function listTrustedFolders(options: TrustStoreOptions = {}): Promise<TrustedFolder[]> {
  const folders = await readTrustFile(trustStorePath(options));
  if (folders) return folders;
  const earlier = earlierStorePath(options);
  return (earlier === undefined ? undefined : await readTrustFile(earlier)) ?? [];
}

/** The folders of one record file; `undefined` when it does not exist. */
async function readTrustFile(file: string): Promise<TrustedFolder[] | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new GyreError("config_error", `Cannot read ${file}: ${errorMessage(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GyreError("config_error", `${file} is not valid JSON: ${errorMessage(error)}`, { cause: error });
  }
  const parsed = TrustFile.safeParse(json);
  if (!parsed.success) {
    throw new GyreError("config_error", `${file} is invalid: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return parsed.data.folders;
}

/**
 * The trusted folder that covers `folder` (the folder itself or one of its parents), by real
 * path; `undefined` when it is not trusted. This is what decides whether a project's settings
 * apply in full.
 */
export async function findTrustedFolder(
  folder: string,
  options: TrustStoreOptions = {},
): Promise<TrustedFolder | undefined> {
  const real = await realOrResolved(folder);
  const folders = await listTrustedFolders(options);
  return folders.find((entry) => contains(entry.path, real));
}

/** What {@link trustFolder} did. */
export interface TrustOutcome {
  /** The record that covers the folder now. */
  folder: TrustedFolder;
  /** False when it was trusted already (itself or through a parent); nothing was written then. */
  added: boolean;
}

/**
 * Trust `folder` and its subfolders: their `.gyre/` and `.claude/` project and local settings,
 * agent files and `.mcp.json` servers apply in full from the next run on. Recorded by real
 * path in the person's config, written atomically. This is what `gyre trust` and the
 * interactive agent's trust prompt call. A folder that contains the home folder (home itself,
 * its parents, `/`) is refused: trusting it would trust every repository the person ever
 * clones. A missing folder is a `config_error`.
 */
export async function trustFolder(folder: string, options: TrustStoreOptions = {}): Promise<TrustOutcome> {
  const real = await existingFolder(folder);
  const home = await realOrResolved(options.home ?? homedir());
  if (contains(real, home)) {
    throw new GyreError(
      "config_error",
      `Will not trust ${real}: it contains your home folder, so every repository under it would be trusted. Trust the project's own folder instead.`,
    );
  }
  const folders = await listTrustedFolders(options);
  const covering = folders.find((entry) => contains(entry.path, real));
  if (covering) return { folder: covering, added: false };
  const entry = { path: real, trustedAt: (options.now ?? (() => new Date()))().toISOString() };
  await writeTrustedFolders([...folders, entry], options);
  return { folder: entry, added: true };
}

/** What {@link untrustFolder} did. */
export interface UntrustOutcome {
  /** The record removed; `undefined` when `folder` itself was not in the record. */
  removed?: TrustedFolder;
  /** A parent whose record still trusts `folder`: untrusting the folder alone cannot stop that. */
  stillTrustedBy?: TrustedFolder;
}

/** Remove `folder`'s own record (by real path; a folder deleted since is matched as given). */
export async function untrustFolder(folder: string, options: TrustStoreOptions = {}): Promise<UntrustOutcome> {
  const real = await realOrResolved(folder);
  const folders = await listTrustedFolders(options);
  const removed = folders.find((entry) => entry.path === real);
  const rest = folders.filter((entry) => entry !== removed);
  if (removed) await writeTrustedFolders(rest, options);
  const stillTrustedBy = rest.find((entry) => contains(entry.path, real));
  return { ...(removed ? { removed } : {}), ...(stillTrustedBy ? { stillTrustedBy } : {}) };
}

/**
 * Temp file in the same folder, fsync, rename: a crash or a full disk leaves the old record
 * or the new one, never a torn file. Two writers at once: the last one wins, whole. Always in
 * the data folder: a list read from the home folder's earlier record moves there with it.
 */
async function writeTrustedFolders(folders: TrustedFolder[], options: TrustStoreOptions): Promise<void> {
  const file = trustStorePath(options);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const text = `${JSON.stringify({ version: 1, folders }, null, 2)}\n`;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw new GyreError("config_error", `Cannot write ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

async function existingFolder(folder: string): Promise<string> {
  try {
    const real = await realpath(folder);
    if ((await stat(real)).isDirectory()) return real;
  } catch (error) {
    throw new GyreError("config_error", `Cannot trust ${path.resolve(folder)}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  throw new GyreError("config_error", `Cannot trust ${path.resolve(folder)}: it is not a folder`);
}

/** `folder`'s real path (symlinks resolved), or its absolute path when it does not exist. */
export async function realOrResolved(folder: string): Promise<string> {
  try {
    return await realpath(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** Whether `child` is `parent` or inside it (both absolute). */
function contains(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  if (relative === "") return true;
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}
