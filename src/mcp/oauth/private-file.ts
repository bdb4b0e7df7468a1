import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `text` to `path` so that only the owner can read it: the folder is created with mode
 * 0700 (and narrowed to it if it exists), the file is a new temp file opened with mode 0600,
 * fsynced and renamed over the target, so a crash leaves the old file or the new one, never a
 * half-written one, and never a moment where the file is readable by others.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  const temp = join(folder, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", 0o600);
  try {
    // The umask may only narrow the mode; chmod makes it exactly 0600 either way.
    await handle.chmod(0o600);
    await handle.writeFile(text, "utf8");
    await handle.sync();
    await handle.close();
    await rename(temp, path);
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
}
