import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import { atomicWriteFile, tempFileName } from "./atomic-write.js";

const OPTIONS = { toolName: "Write" };
const NOBODY = 65534;
let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "gyre-atomic-")));
  // Open to the unprivileged user some tests switch to.
  chmodSync(dir, 0o777);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string, mode = 0o644): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

/** Names left in `dir` that look like our temp files. */
function tempFiles(folder = dir): string[] {
  return readdirSync(folder).filter((name) => name.includes(".gyre-"));
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Owners can only be given away by root; these tests must not pass by doing nothing elsewhere. */
function requireRoot(): void {
  if (!isRoot()) throw new Error("this test gives files to other owners: run it as root (CI does)");
}

/** Runs `fn` without root's power to ignore permissions (euid only, so root comes back after). */
async function unprivileged<T>(fn: () => Promise<T>): Promise<T> {
  if (!isRoot()) return fn();
  process.seteuid!(NOBODY);
  try {
    return await fn();
  } finally {
    process.seteuid!(0);
  }
}

/**
 * The names that appear in `folder` (created or renamed into it) while `fn` runs, in order,
 * up to `last`. inotify reports them in order, so no waiting on time is needed.
 */
async function namesAppearing(folder: string, last: string, fn: () => Promise<unknown>): Promise<string[]> {
  const names: string[] = [];
  const watcher = watch(folder);
  try {
    const seen = new Promise<void>((resolvePromise) =>
      watcher.on("change", (kind, name) => {
        if (kind !== "rename" || names.at(-1) === String(name)) return;
        names.push(String(name));
        if (String(name) === last) resolvePromise();
      }),
    );
    await fn();
    await seen;
    return names;
  } finally {
    watcher.close();
  }
}

async function failure(promise: Promise<unknown>): Promise<GyreError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GyreError);
  return error as GyreError;
}

describe("atomicWriteFile", () => {
  it("creates a new file under its name only once whole, with the mode the umask gives", async () => {
    const path = join(dir, "new.txt");
    const names = await namesAppearing(dir, "new.txt", () => atomicWriteFile(path, Buffer.from("hello\n"), OPTIONS));
    expect(names).toEqual([expect.stringMatching(/^\.new\.txt\.gyre-[0-9a-f]{12}\.tmp$/), "new.txt"]);
    writeFileSync(join(dir, "plain.txt"), "x");
    expect(readFileSync(path, "utf8")).toBe("hello\n");
    expect(statSync(path).mode).toBe(statSync(join(dir, "plain.txt")).mode);
    expect(tempFiles()).toEqual([]);
  });

  it("replaces an existing file with a new inode, keeping its mode and returning its stats", async () => {
    const path = file("a.txt", "old\n", 0o640);
    const before = statSync(path);
    const stats = await atomicWriteFile(path, Buffer.from("new content\n"), OPTIONS);
    const after = statSync(path);
    expect(readFileSync(path, "utf8")).toBe("new content\n");
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o7777).toBe(0o640);
    expect({ size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino }).toEqual({
      size: after.size,
      mtimeMs: after.mtimeMs,
      ino: after.ino,
    });
    expect(tempFiles()).toEqual([]);
  });

  it("keeps the owner, then the mode, so a setuid bit survives the change of owner", async () => {
    requireRoot();
    const path = file("tool", "#!/bin/sh\n", 0o644);
    chownSync(path, 1234, 2345);
    chmodSync(path, 0o4750);
    const held = openSync(path, "r");
    await atomicWriteFile(path, Buffer.from("#!/bin/sh\necho hi\n"), OPTIONS);
    // Replaced, not rewritten in place (which keeps all of this trivially).
    expect(fstatSync(held).nlink).toBe(0);
    closeSync(held);
    const after = statSync(path);
    expect({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }).toEqual({
      uid: 1234,
      gid: 2345,
      mode: 0o4750,
    });
  });

  it("follows a chain of symlinks: the links stay links, the file at the end is replaced", async () => {
    mkdirSync(join(dir, "real"));
    const target = file("real/target.txt", "old\n", 0o600);
    symlinkSync("real/target.txt", join(dir, "link2"));
    symlinkSync(join(dir, "link2"), join(dir, "link1"));
    const held = openSync(target, "r");
    await atomicWriteFile(join(dir, "link1"), Buffer.from("through links\n"), OPTIONS);
    expect(fstatSync(held).nlink).toBe(0);
    closeSync(held);
    expect(lstatSync(join(dir, "link1")).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, "link2")).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("through links\n");
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(tempFiles()).toEqual([]);
    expect(tempFiles(join(dir, "real"))).toEqual([]);
  });

  it("creates the missing file a dangling symlink points to, as writing through it would", async () => {
    symlinkSync("made.txt", join(dir, "dangling"));
    const names = await namesAppearing(dir, "made.txt", () =>
      atomicWriteFile(join(dir, "dangling"), Buffer.from("made\n"), OPTIONS),
    );
    expect(names).toEqual([expect.stringMatching(/^\.made\.txt\.gyre-/), "made.txt"]);
    expect(lstatSync(join(dir, "dangling")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "made.txt"), "utf8")).toBe("made\n");
  });

  it("gives the path a new inode: other hard links keep the old content (documented)", async () => {
    const path = file("a.txt", "old\n");
    linkSync(path, join(dir, "other-link.txt"));
    await atomicWriteFile(path, Buffer.from("new\n"), OPTIONS);
    expect(readFileSync(path, "utf8")).toBe("new\n");
    expect(readFileSync(join(dir, "other-link.txt"), "utf8")).toBe("old\n");
  });

  it("refuses a file the process may not write, as writing in place would", async () => {
    const path = file("read-only.txt", "keep\n", 0o444);
    // Root writes read-only files, in place or not; everyone else is refused.
    const error = await unprivileged(() => failure(atomicWriteFile(path, Buffer.from("x"), OPTIONS)));
    expect(error.message).toMatch(/permission denied: the file is not writable.*The file was not changed\./);
    expect(readFileSync(path, "utf8")).toBe("keep\n");
    expect(tempFiles()).toEqual([]);
  });

  it("refuses to write in place when the folder is not writable, and says why", async () => {
    mkdirSync(join(dir, "locked"));
    const path = file("locked/open.txt", "keep\n", 0o666);
    chmodSync(join(dir, "locked"), 0o555);
    const error = await unprivileged(() => failure(atomicWriteFile(path, Buffer.from("x"), OPTIONS)));
    expect(error.message).toContain(`creating a temporary file in ${join(dir, "locked")}`);
    expect(error.message).toContain("needs write permission on the folder");
    expect(error.code).toBe("tool_error");
    expect(error.toolName).toBe("Write");
    expect(readFileSync(path, "utf8")).toBe("keep\n");
  });

  it("refuses a file whose owner it cannot keep, removing its temp file", async () => {
    requireRoot();
    const path = file("roots.txt", "keep\n", 0o666);
    const error = await unprivileged(() => failure(atomicWriteFile(path, Buffer.from("x"), OPTIONS)));
    expect(error.message).toMatch(/owned by uid 0 gid 0, and this process cannot give the replacement file/);
    expect(readFileSync(path, "utf8")).toBe("keep\n");
    expect(statSync(path).uid).toBe(0);
    expect(tempFiles()).toEqual([]);
  });

  it("refuses a FIFO instead of turning it into a plain file", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const error = await failure(atomicWriteFile(fifo, Buffer.from("x"), OPTIONS));
    expect(error.message).toContain("not a regular file");
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("passes path problems through with their fs code, for the tools' usual messages", async () => {
    mkdirSync(join(dir, "folder"));
    await expect(atomicWriteFile(join(dir, "folder"), Buffer.from("x"), OPTIONS)).rejects.toMatchObject({
      code: "EISDIR",
    });
    await expect(atomicWriteFile(join(dir, "no", "such.txt"), Buffer.from("x"), OPTIONS)).rejects.toMatchObject({
      code: "ENOENT",
    });
    expect(tempFiles()).toEqual([]);
  });

  it("leaves one whole version when two writes race, and no temp files", async () => {
    const path = file("raced.txt", "old\n");
    // Several 512 KiB chunks each: writes in place would interleave.
    const versions = ["a", "b", "c", "d"].map((letter) => Buffer.alloc(4 * 1024 * 1024, letter));
    await Promise.all(versions.map((bytes) => atomicWriteFile(path, bytes, OPTIONS)));
    const final = readFileSync(path);
    expect(versions.some((bytes) => bytes.equals(final))).toBe(true);
    expect(tempFiles()).toEqual([]);
  });
});

describe("tempFileName", () => {
  it("is hidden, names the file and says it is ours", () => {
    expect(tempFileName("notes.txt")).toMatch(/^\.notes\.txt\.gyre-[0-9a-f]{12}\.tmp$/);
    expect(tempFileName("notes.txt")).not.toBe(tempFileName("notes.txt"));
  });

  it("stays within 255 bytes for the longest names, cutting whole characters", () => {
    const name = tempFileName("é".repeat(127));
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name).toMatch(/^\.é+\.gyre-[0-9a-f]{12}\.tmp$/);
  });
});
