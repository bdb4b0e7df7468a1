import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitlinkGuard } from "./gitlinks.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repository(): { dir: string; git: (...args: string[]) => string } {
  const dir = mkdtempSync(path.join(tmpdir(), "gyre-gitlinks-"));
  made.push(dir);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: dir,
      encoding: "utf8",
      stdio: "pipe",
    });
  git("init", "-q");
  git("commit", "-q", "--allow-empty", "-m", "x");
  return { dir, git };
}

/** A gitlink at `name` in the index, its folder empty (an uninitialised submodule). */
function gitlink(dir: string, git: (...args: string[]) => string, name: string): string {
  git("update-index", "--add", "--cacheinfo", `160000,${git("rev-parse", "HEAD").trim()},${name}`);
  mkdirSync(path.join(dir, name), { recursive: true });
  return path.join(dir, name);
}

describe("GitlinkGuard", () => {
  it("costs nothing without gitlinks, and finds none in a folder that is not a repository", async () => {
    const { dir } = repository();
    const plain = mkdtempSync(path.join(tmpdir(), "gyre-gitlinks-plain-"));
    made.push(plain);
    const guard = await GitlinkGuard.start([dir, plain], [], true);
    mkdirSync(path.join(dir, "x", ".git"), { recursive: true });
    expect(guard.check()).toEqual([]);
  });

  it("picks a free name, and sets aside a .git that replaced one present at the start", async () => {
    const { dir, git } = repository();
    const checkout = gitlink(dir, git, "deep/sub");
    mkdirSync(path.join(checkout, ".git"));
    const guard = await GitlinkGuard.start([dir], [], false);
    expect(guard.check()).toEqual([]);
    rmSync(path.join(checkout, ".git"), { recursive: true });
    mkdirSync(path.join(checkout, ".git-sandboxed"));
    writeFileSync(path.join(checkout, ".git"), "gitdir: /elsewhere\n");
    const [violation] = guard.check();
    expect(violation?.message).toContain("was renamed to deep/sub/.git-sandboxed-2");
    expect(violation?.message).toContain("Ask the user to create it if the repository is wanted.");
    expect(readdirSync(checkout).sort()).toEqual([".git-sandboxed", ".git-sandboxed-2"]);
    expect(guard.check()).toEqual([]);
  });

  it("sets aside a .git folder planted where one was at the start, its first one removed, and leaves an untouched one", async () => {
    const { dir, git } = repository();
    const kept = gitlink(dir, git, "kept");
    const swapped = gitlink(dir, git, "swapped");
    for (const checkout of [kept, swapped]) mkdirSync(path.join(checkout, ".git"));
    const guard = await GitlinkGuard.start([dir], [], false);
    // A hostile command: the same kind of entry at the same place, made after the run started.
    rmSync(path.join(swapped, ".git"), { recursive: true });
    mkdirSync(path.join(swapped, ".git", "hooks"), { recursive: true });
    writeFileSync(path.join(swapped, ".git", "config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n");
    const violations = guard.check();
    expect(violations.map((violation) => violation.message)).toEqual([
      expect.stringContaining("swapped/.git, a repository created by a sandboxed command"),
    ]);
    expect(readdirSync(swapped)).toEqual([".git-sandboxed"]);
    expect(readdirSync(kept)).toEqual([".git"]);
  });

  it("reads the gitlinks again when the index changed, names that are not UTF-8 too; a file at the path is no checkout", async () => {
    const { dir, git } = repository();
    const guard = await GitlinkGuard.start([dir], [], true);
    const name = Buffer.concat([Buffer.from(`${dir}/v-`), Buffer.from([0xff])]);
    const ascii = path.join(dir, "v-ascii");
    mkdirSync(ascii);
    execFileSync("git", ["init", "-q"], { cwd: ascii });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"], {
      cwd: ascii,
    });
    // Child processes take their arguments as strings: the name is given its byte on the file system.
    renameSync(ascii, name);
    git("add", "-A");
    writeFileSync(gitlink(dir, git, "other").replace(/other$/, "file"), "");
    git("update-index", "--add", "--cacheinfo", `160000,${git("rev-parse", "HEAD").trim()},file`);
    const found = guard.check();
    expect(found.map((violation) => violation.kind)).toEqual(["write"]);
    expect(existsSync(Buffer.concat([name, Buffer.from("/.git-sandboxed")]))).toBe(true);
  });

  it("watches the index of a repository nested in the workspace too", async () => {
    const { dir, git } = repository();
    const nested = path.join(dir, "vendor/lib");
    mkdirSync(nested, { recursive: true });
    const inner = (...args: string[]) => execFileSync("git", args, { cwd: nested, stdio: "pipe" });
    inner("init", "-q");
    const guard = await GitlinkGuard.start([dir], [nested], true);
    const checkout = path.join(nested, "new");
    mkdirSync(checkout);
    inner("update-index", "--add", "--cacheinfo", `160000,${git("rev-parse", "HEAD").trim()},new`);
    writeFileSync(path.join(checkout, ".git"), "gitdir: /elsewhere\n");
    expect(guard.check().map((violation) => violation.target)).toEqual([path.join(checkout, ".git")]);
  });
});
