import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ToolSession } from "../../tool-session.js";
import { backgroundShellsOf } from "./background-shells.js";
import { commandEnvironment } from "./shell-environment.js";
import { OWNER_FILE, removeStaleSpillDirectories, SpillDirectory, spillDirectoryOf } from "./spill-directory.js";
import { ownerOf, type SpillOwner } from "./spill-owner.js";

const tempRoot = () => mkdtempSync(join(tmpdir(), "gyre-spill-root-"));
const DAY_MS = 24 * 60 * 60 * 1000;

const live = spawn("sleep", ["1000"], { stdio: "ignore" });
afterAll(() => live.kill("SIGKILL"));

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim());
}

function spillDir(root: string, name: string, owner: SpillOwner | undefined, ageMs = 0): string {
  const directory = join(root, name);
  mkdirSync(directory);
  writeFileSync(join(directory, "toolu_1.log"), "output");
  if (owner) writeFileSync(join(directory, OWNER_FILE), JSON.stringify(owner));
  const then = new Date(Date.now() - ageMs);
  for (const path of [join(directory, "toolu_1.log"), ...(owner ? [join(directory, OWNER_FILE)] : []), directory]) {
    utimesSync(path, then, then);
  }
  return directory;
}

describe("SpillDirectory", () => {
  it("creates a private directory with its owner on the first file, and removes it all", () => {
    const root = tempRoot();
    const directory = new SpillDirectory("session/1", root);
    expect(directory.path).toBeUndefined();
    const file = directory.create("toolu_1")!;
    file.write("hello");
    expect(directory.path).toMatch(new RegExp(`^${root}/session_1-`));
    expect(file.path).toBe(join(directory.path!, "toolu_1.log"));
    expect(JSON.parse(readFileSync(join(directory.path!, OWNER_FILE), "utf8"))).toEqual(ownerOf());
    directory.remove();
    expect(existsSync(directory.path!)).toBe(false);
    expect(file.usable).toBe(false);
    expect(directory.create("toolu_2")).toBeUndefined();
  });

  it("makes no files under a root that is a symlink", () => {
    const base = tempRoot();
    symlinkSync(tempRoot(), join(base, "link"));
    expect(new SpillDirectory("s", join(base, "link")).create("toolu_1")).toBeUndefined();
  });

  it("is removed when its session ends, after the session's background shells have stopped", async () => {
    const session = new ToolSession("spill-dispose");
    const shells = backgroundShellsOf(session);
    const shell = await shells.start({
      command: "yes | head -c 200000; sleep 1000",
      cwd: tmpdir(),
      shell: "/bin/bash",
      env: commandEnvironment(),
    });
    const directory = spillDirectoryOf(session);
    await expect.poll(() => directory.path && existsSync(join(directory.path, "bash_1.log"))).toBe(true);
    await session.dispose();
    expect(shell.status).toBe("killed");
    expect(existsSync(directory.path!)).toBe(false);
  });
});

describe("removeStaleSpillDirectories", () => {
  it("removes directories of dead owners and old unvouched ones, never a live owner's", async () => {
    const root = tempRoot();
    const here = ownerOf();
    const dead = spillDir(root, "dead-owner", { ...here, pid: deadPid(), start: 1 });
    const alive = spillDir(root, "live-owner", ownerOf(live.pid!), 30 * DAY_MS);
    const elsewhereFresh = spillDir(root, "other-host-fresh", { ...here, host: "elsewhere" });
    const elsewhereOld = spillDir(root, "other-host-old", { ...here, host: "elsewhere" }, 2 * DAY_MS);
    const unownedFresh = spillDir(root, "unowned-fresh", undefined);
    const unownedOld = spillDir(root, "unowned-old", undefined, 2 * DAY_MS);
    writeFileSync(join(root, "a-file"), "not a directory");

    const removed = await removeStaleSpillDirectories(root);
    expect(removed.sort()).toEqual([dead, elsewhereOld, unownedOld].sort());
    for (const kept of [alive, elsewhereFresh, unownedFresh, join(root, "a-file")]) expect(existsSync(kept)).toBe(true);
  });

  it.runIf(process.platform === "linux")("treats a reused pid (another start time) as a dead owner", async () => {
    const root = tempRoot();
    const reused = spillDir(root, "reused", { ...ownerOf(live.pid!), start: ownerOf(live.pid!).start! - 1 });
    expect(await removeStaleSpillDirectories(root)).toEqual([reused]);
  });

  it("does nothing when the root does not exist", async () => {
    expect(await removeStaleSpillDirectories(join(tempRoot(), "missing"))).toEqual([]);
  });
});
