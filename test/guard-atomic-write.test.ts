import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { compileAllForChild, killHard } from "./sessions-child.js";

/** `count` numbered lines starting with `word`: every byte says which version and where it is. */
function lines(word: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${word} line ${String(index).padStart(7, "0")}\n`).join("");
}

function tempFiles(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.includes(".gyre-"));
}

/** Owners can only be given away by root (as here and in CI); the test must not pass by doing less. */
function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) throw new Error(`${what} needs root; run this test as root (CI does)`);
}

/**
 * A child running a real query whose Write stops once half of a big buffer is on disk, so
 * that `kill -9` lands in the middle of the write every time. Node writes a big buffer in
 * 512 KiB chunks with the event loop turning in between, so the pause is a point where a
 * real kill can land; it prints the file being written, and the parent kills it there.
 */
const CHILD = `
  const fs = (await import("node:fs")).default;
  const { syncBuiltinESMExports } = await import("node:module");
  const BIG = 1 << 20;
  const pause = (file) => {
    process.stdout.write("half-written " + file + "\\n");
    setInterval(() => {}, 1 << 30);
    return new Promise(() => {});
  };
  const promises = fs.promises;
  const writeFile = promises.writeFile;
  promises.writeFile = async (file, data, options) => {
    if (!(data?.length >= BIG)) return writeFile(file, data, options);
    await writeFile(file, data.subarray(0, data.length >> 1), options);
    return pause(String(file));
  };
  syncBuiltinESMExports();
  const probe = await promises.open(process.execPath);
  const handles = Object.getPrototypeOf(probe);
  await probe.close();
  for (const name of ["write", "writeFile"]) {
    const real = handles[name];
    handles[name] = async function (data, ...rest) {
      if (!(data?.length >= BIG)) return real.call(this, data, ...rest);
      await real.call(this, data.subarray(0, data.length >> 1));
      return pause(fs.readlinkSync("/proc/self/fd/" + this.fd));
    };
  }
  const { query } = await import(process.env.ENTRY);
  const q = query({
    prompt: "rewrite big.txt",
    options: {
      model: "anthropic/claude-sonnet-4-5",
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: process.env.BASE_URL },
      tools: ["Read", "Write"],
      permissionMode: "bypassPermissions",
      persistSession: false,
      cwd: process.env.CWD,
    },
  });
  for await (const message of q) {}
  process.stdout.write("finished\\n");
`;

/** Starts the child; resolves with it and the line after `half-written`. */
function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; file: string }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /half-written (.*)\n/.exec(stdout);
      if (found) resolvePromise({ child, file: found[1]! });
      else if (stdout.includes("finished\n")) reject(new Error("the child finished without writing half a file"));
    });
    child.once("exit", (code) => reject(new Error(`child exited (${code}) mid-test: ${stdout}\n${stderr}`)));
  });
}

describe("kill -9 in the middle of a 20 MB Write", () => {
  let entry: string;
  let cleanupCompiled: () => void;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    ({ entry, cleanup: cleanupCompiled } = compileAllForChild());
    dir = realpathSync(mkdtempSync(join(tmpdir(), "gyre-atomic-kill-")));
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map(killHard));
  });
  afterAll(() => {
    cleanupCompiled();
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves the original byte for byte, and only a temp file that is clearly ours", async () => {
    const target = join(dir, "big.txt");
    const original = Buffer.from(lines("original", 20_000));
    writeFileSync(target, original);
    const content = lines("new", Math.ceil((20 * 1024 * 1024) / 17));
    expect(content.length).toBeGreaterThanOrEqual(20 * 1024 * 1024);
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: target }),
        // Streamed in 64 KiB pieces: the default 16-character deltas make 1.3 million events.
        mockTurn.of([{ type: "tool_use", name: "Write", input: { file_path: target, content }, chunkSize: 64 * 1024 }]),
        mockTurn.text("never reached"),
      ],
    };
    await withMock(script, async (server) => {
      const { child, file } = await startChild({ ENTRY: entry, BASE_URL: server.baseURL, CWD: dir });
      children.push(child);
      await killHard(child);

      expect(readFileSync(target).equals(original)).toBe(true);
      // What the kill interrupted was a temp file beside the target: it stays (nothing can
      // remove it after SIGKILL), hidden and named as ours, with half of the new content.
      expect(dirname(file)).toBe(dir);
      expect(basename(file)).toMatch(/^\.big\.txt\.gyre-[0-9a-f]{12}\.tmp$/);
      expect(readdirSync(dir).sort()).toEqual([basename(file), "big.txt"]);
      expect(statSync(file).size).toBe(Buffer.byteLength(content) >> 1);

      // A later run reads the original and writes the file; the stale temp file is left alone.
      const later = {
        turns: [
          mockTurn.toolUse("Read", { file_path: target, limit: 1 }),
          mockTurn.toolUse("Write", { file_path: target, content: "after the crash\n" }),
          mockTurn.text("done"),
        ],
      };
      await withMock(later, async (laterServer) => {
        const messages = await runQuery(laterServer, FORMATS[0], "again", {
          tools: ["Read", "Write"],
          cwd: dir,
          permissionMode: "bypassPermissions",
        });
        const [read, write] = toolResults(messages);
        expect(String(read?.content)).toContain("original line 0000000");
        expect(write?.is_error).toBeUndefined();
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
      });
      expect(readFileSync(target, "utf8")).toBe("after the crash\n");
      expect(statSync(file).size).toBe(Buffer.byteLength(content) >> 1);
    });
    // The mock streams tool arguments in 16-character deltas: 20 MB is 1.3 million SSE events.
  }, 60_000);
});

describe("a full disk", () => {
  let disk: string;

  beforeAll(() => {
    disk = realpathSync(mkdtempSync(join(tmpdir(), "gyre-atomic-full-")));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], { stdio: "pipe" });
    } catch (error) {
      // No quiet skip: a user namespace (unshare -Urm) would hide the mount from this process.
      rmSync(disk, { recursive: true, force: true });
      throw new Error(`cannot mount a 1 MiB tmpfs at ${disk}; this test needs root (CI runs as root)`, {
        cause: error,
      });
    }
  });
  afterAll(() => {
    execFileSync("umount", [disk]);
    rmSync(disk, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const name of readdirSync(disk)) rmSync(join(disk, name), { recursive: true, force: true });
  });

  it.each(FORMATS)(
    "fails Write and Edit with ENOSPC, originals byte-identical, and goes on ($name)",
    async (format) => {
      const written = join(disk, "write.txt");
      const edited = join(disk, "edit.txt");
      const originals = { written: Buffer.from(lines("write", 1_000)), edited: Buffer.from(lines("edit", 1_000)) };
      writeFileSync(written, originals.written);
      writeFileSync(edited, originals.edited);
      // 32 KiB stay free: too little for either change below, in place or beside, but enough
      // for a copy of edit.txt. The model's inputs stay small enough for every context window.
      const { bavail, bsize } = statfsSync(disk);
      writeFileSync(join(disk, "filler"), Buffer.alloc(bavail * bsize - 32 * 1024));
      const script = {
        turns: [
          mockTurn.of([
            { type: "tool_use", name: "Read", input: { file_path: written, limit: 1 } },
            { type: "tool_use", name: "Read", input: { file_path: edited, limit: 1 } },
          ]),
          mockTurn.toolUse("Write", { file_path: written, content: lines("new", 5_000) }),
          mockTurn.toolUse("Edit", {
            file_path: edited,
            old_string: "edit line 0000000\n",
            new_string: lines("inserted", 4_000),
          }),
          mockTurn.toolUse("Edit", { file_path: edited, old_string: "edit line 0000001", new_string: "small" }),
          mockTurn.text("carried on"),
        ],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "fill the disk", {
          tools: ["Read", "Write", "Edit"],
          cwd: disk,
          permissionMode: "bypassPermissions",
        });
        const [, , write, edit, small] = toolResults(messages);
        const enospc = (path: string) =>
          `Error: Cannot write ${path}: no space left on device (ENOSPC). The file was not changed.`;
        expect(readFileSync(written).equals(originals.written)).toBe(true);
        // The failed Edit left the file as it was, so a small one afterwards applies cleanly.
        expect(readFileSync(edited, "utf8")).toBe(originals.edited.toString().replace("edit line 0000001", "small"));
        expect(small?.is_error).toBeUndefined();
        expect(write).toMatchObject({ is_error: true, content: enospc(written) });
        expect(edit).toMatchObject({ is_error: true, content: enospc(edited) });
        expect(tempFiles(disk)).toEqual([]);
        expect(server.requests).toHaveLength(5);
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "carried on" });
      });
    },
  );
});

describe("what a replaced file keeps", () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "gyre-atomic-keep-")));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps mode 0640 and the owner through Write and Edit, and a symlink stays a link", async () => {
    requireRoot("giving the file another owner");
    const owned = join(dir, "owned.txt");
    writeFileSync(owned, "first\n");
    chownSync(owned, 1234, 2345);
    chmodSync(owned, 0o640);
    mkdirSync(join(dir, "real"));
    const target = join(dir, "real", "target.txt");
    writeFileSync(target, "one\n");
    chmodSync(target, 0o600);
    const link = join(dir, "link.txt");
    symlinkSync("real/target.txt", link);
    // Held open, the old files show they were replaced (unlinked), not rewritten in place,
    // which would keep mode, owner and link trivially.
    const before = { owned: openSync(owned, "r"), target: openSync(target, "r") };

    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "Read", input: { file_path: owned } },
          { type: "tool_use", name: "Read", input: { file_path: link } },
        ]),
        mockTurn.toolUse("Write", { file_path: owned, content: "second\nthird\n" }),
        mockTurn.toolUse("Edit", { file_path: owned, old_string: "third", new_string: "fourth" }),
        mockTurn.toolUse("Write", { file_path: link, content: "two\nthree\n" }),
        mockTurn.toolUse("Edit", { file_path: link, old_string: "three", new_string: "four" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "change them", {
        tools: ["Read", "Write", "Edit"],
        cwd: dir,
        permissionMode: "bypassPermissions",
      });
      expect(toolResults(messages).map((result) => result.is_error)).toEqual(Array(6).fill(undefined));
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
    });

    const ownedNow = statSync(owned);
    expect(readFileSync(owned, "utf8")).toBe("second\nfourth\n");
    expect(fstatSync(before.owned).nlink).toBe(0);
    expect({ mode: ownedNow.mode & 0o7777, uid: ownedNow.uid, gid: ownedNow.gid }).toEqual({
      mode: 0o640,
      uid: 1234,
      gid: 2345,
    });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("real/target.txt");
    expect(readFileSync(target, "utf8")).toBe("two\nfour\n");
    expect(fstatSync(before.target).nlink).toBe(0);
    expect(statSync(target).mode & 0o7777).toBe(0o600);
    expect([...tempFiles(dir), ...tempFiles(join(dir, "real"))]).toEqual([]);
    closeSync(before.owned);
    closeSync(before.target);
  });
});
