import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import { atomicWriteFile } from "./atomic-write.js";
import { HeldFolder } from "./held-folder.js";
import { openVerified } from "./open-verified.js";

const USE = { shown: "the file", toolName: "Read", action: "read" } as const;
let root: string;
let ws: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "gyre-held-")));
  ws = join(root, "ws");
  outside = join(root, "outside");
  mkdirSync(join(ws, "A"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, "A", "key.txt"), "inside\n");
  writeFileSync(join(outside, "key.txt"), "outside\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function refusal(promise: Promise<unknown>): Promise<GyreError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GyreError);
  expect((error as GyreError).message).toContain("the path changed while it was being opened");
  return error as GyreError;
}

describe("openVerified", () => {
  it("opens the file at a real path", async () => {
    const handle = await openVerified(join(ws, "A", "key.txt"), USE);
    expect((await handle.readFile()).toString()).toBe("inside\n");
    await handle.close();
  });

  it("refuses a path whose folder is now a symlink, even to a file of the same name", async () => {
    // Resolved while `d` was the folder A; swapped for a link out before the open.
    renameSync(join(ws, "A"), join(ws, "d"));
    const approved = join(ws, "d", "key.txt");
    renameSync(join(ws, "d"), join(ws, "A"));
    symlinkSync(outside, join(ws, "d"));
    const error = await refusal(openVerified(approved, USE));
    expect(error.message).toBe(
      `Cannot use the file: the path changed while it was being opened (it no longer leads to ${join(ws, "d")}: ` +
        "a folder on it was renamed or replaced by a symlink); nothing was read.",
    );
  });

  it("refuses a symlink at the file's own name, and passes fs errors through", async () => {
    rmSync(join(ws, "A", "key.txt"));
    symlinkSync(join(outside, "key.txt"), join(ws, "A", "key.txt"));
    await refusal(openVerified(join(ws, "A", "key.txt"), USE));
    await expect(openVerified(join(ws, "A", "none.txt"), USE)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it.runIf(process.platform === "linux" && process.getuid?.() === 0)(
    "needs only search permission on the folder, as a plain open does",
    async () => {
      for (const dir of [root, ws, join(ws, "A")]) chmodSync(dir, 0o711);
      chmodSync(join(ws, "A", "key.txt"), 0o644);
      process.seteuid!(65534);
      try {
        const handle = await openVerified(join(ws, "A", "key.txt"), USE);
        expect((await handle.readFile()).toString()).toBe("inside\n");
        await handle.close();
      } finally {
        process.seteuid!(0);
      }
    },
  );
});

describe("HeldFolder", () => {
  it.runIf(process.platform === "linux")("keeps acting in the folder it holds when the folder is renamed", async () => {
    const folder = await HeldFolder.open(join(ws, "A"), { ...USE, action: "written" });
    renameSync(join(ws, "A"), join(ws, "moved"));
    symlinkSync(outside, join(ws, "A"));
    writeFileSync(folder.entry("new.txt"), "held\n");
    await folder.rename("new.txt", "renamed.txt");
    await folder.close();
    expect(readFileSync(join(ws, "moved", "renamed.txt"), "utf8")).toBe("held\n");
    expect(readdirSync(outside)).toEqual(["key.txt"]);
  });

  it("makes missing folders one inside the other, refusing a link planted on the way", async () => {
    const made = await HeldFolder.open(join(ws, "A", "b", "c"), { ...USE, action: "written" }, { create: true });
    expect(made.path).toBe(join(ws, "A", "b", "c"));
    await made.close();
    symlinkSync(outside, join(ws, "A", "x"));
    await refusal(HeldFolder.open(join(ws, "A", "x", "y"), { ...USE, action: "written" }, { create: true }));
    expect(readdirSync(outside)).toEqual(["key.txt"]);
  });
});

describe("atomicWriteFile with the approved real path", () => {
  const options = (realPath: string) => ({ toolName: "Write", displayPath: "the file", realPath });

  it("refuses, leaving nothing anywhere, when a folder on the path became a link out", async () => {
    const approved = join(ws, "d", "new.txt");
    symlinkSync(outside, join(ws, "d"));
    await refusal(atomicWriteFile(approved, Buffer.from("x"), options(approved)));
    await refusal(atomicWriteFile(approved, Buffer.from("x"), { ...options(approved), createFolders: true }));
    expect(readdirSync(outside)).toEqual(["key.txt"]);
  });

  it("refuses a symlink at the name instead of writing through it", async () => {
    const approved = join(ws, "A", "key.txt");
    rmSync(approved);
    symlinkSync(join(outside, "key.txt"), approved);
    await refusal(atomicWriteFile(approved, Buffer.from("x"), options(approved)));
    expect(readFileSync(join(outside, "key.txt"), "utf8")).toBe("outside\n");
    expect(readdirSync(join(ws, "A"))).toEqual(["key.txt"]);
  });
});
