import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArgs } from "./bwrap-args.js";
import { envFileFolders } from "./env-files.js";
import { missingProtectedFolders, mountPath } from "./paths.js";
import { isExcluded, resolvePolicy } from "./policy.js";
import { mergeSandboxSettings } from "./settings.js";

const anchors = { cwd: "/work/p", home: "/home/u" };

describe("mountPath", () => {
  it.each([
    ["//etc/secret", "/etc/secret"],
    ["~/.ssh/**", "/home/u/.ssh"],
    ["./secrets/*", "/work/p/secrets"],
    ["secrets", "/work/p/secrets"],
    ["/abs/dir", "/abs/dir"],
  ])("%s → %s", (pattern, expected) => {
    expect(mountPath(pattern, anchors)).toBe(expected);
  });

  it("anchors /path rules at the settings file's root, and gives up on globs a mount cannot be", () => {
    expect(mountPath("/config", { ...anchors, root: "/repo" })).toBe("/repo/config");
    expect(mountPath("**/.env", anchors)).toBeUndefined();
    expect(mountPath("src/*.key", anchors)).toBeUndefined();
  });
});

describe("isExcluded", () => {
  it("matches a command by its leading words only", () => {
    expect(isExcluded("docker ps -a", ["docker"])).toBe(true);
    expect(isExcluded("docker", ["docker"])).toBe(true);
    expect(isExcluded("dockerd", ["docker"])).toBe(false);
    expect(isExcluded("echo docker", ["docker"])).toBe(false);
    expect(isExcluded("git push origin", ["git push:*"])).toBe(true);
    expect(isExcluded("git status", ["git push"])).toBe(false);
  });
});

describe("resolvePolicy", () => {
  it("maps Read deny rules to unreadable, Edit allow rules to writable and Edit deny rules to read-only", () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "gyre-policy-"));
    for (const dir of ["secrets", "out", "locked"]) mkdirSync(path.join(cwd, dir));
    writeFileSync(path.join(cwd, "note"), "");
    const policy = resolvePolicy({
      settings: { filesystem: { denyRead: ["./note", "./absent"] } },
      workspace: [cwd],
      rules: {
        allow: [{ rule: "Edit(./out/**)" }, { rule: "Bash(npm test)" }],
        deny: [{ rule: "Read(./secrets/**)" }, { rule: "Edit(./locked)" }, { rule: "Read(**/*.pem)" }],
      },
      cwd,
      home: cwd,
    });
    expect(policy.writable).toEqual([cwd, path.join(cwd, "out")]);
    expect(policy.denyRead).toEqual([path.join(cwd, "note"), path.join(cwd, "secrets")]);
    expect(policy.denyWrite).toEqual([path.join(cwd, "locked")]);
    expect(policy.allowUnsandboxedCommands).toBe(true);
    const state = mkdtempSync(path.join(tmpdir(), "gyre-state-"));
    const withState = resolvePolicy({
      settings: {},
      workspace: [cwd],
      rules: { allow: [], deny: [] },
      cwd,
      home: cwd,
      stateDirectories: [state],
    });
    expect(withState.denyRead).toEqual([state]);
    expect(policy.autoAllowBashIfSandboxed).toBe(true);
  });
});

describe("bwrapArgs", () => {
  it("mounts a denied path inside the workspace after the workspace, and keeps /tmp read-only", () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "gyre-args-"));
    mkdirSync(path.join(cwd, "secrets"));
    const policy = resolvePolicy({
      settings: {},
      workspace: [cwd],
      rules: { allow: [], deny: [{ rule: "Read(./secrets)" }] },
      cwd,
      home: cwd,
    });
    const args = bwrapArgs({ policy, temporaryDirectory: "/tmp/t", deniedFile: "/tmp/denied" });
    const at = (needle: string) => args.indexOf(needle);
    expect(at("/tmp")).toBeLessThan(at(cwd));
    expect(args.lastIndexOf(path.join(cwd, "secrets"))).toBeGreaterThan(at(cwd));
    expect(args.slice(args.lastIndexOf("--remount-ro"), args.lastIndexOf("--remount-ro") + 2)).toEqual([
      "--remount-ro",
      "/tmp",
    ]);
    for (const flag of ["--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"])
      expect(args).toContain(flag);
    expect(args).not.toContain("HTTP_PROXY");
  });
});

describe("missingProtectedFolders", () => {
  it("holds .git/hooks, modules and worktrees only in a real .git folder: in a worktree .git is a file", () => {
    const repo = mkdtempSync(path.join(tmpdir(), "gyre-repo-"));
    mkdirSync(path.join(repo, ".git"));
    expect(missingProtectedFolders(repo)).toEqual(
      [".gyre", ".claude", ".git/hooks", ".git/modules", ".git/worktrees"].map((n) => path.join(repo, n)),
    );
    const worktree = mkdtempSync(path.join(tmpdir(), "gyre-worktree-"));
    writeFileSync(path.join(worktree, ".git"), "gitdir: /elsewhere\n");
    expect(missingProtectedFolders(worktree)).toEqual([".gyre", ".claude"].map((n) => path.join(worktree, n)));
  });
});

describe("mergeSandboxSettings", () => {
  it("takes scalars from the last block and adds up lists", () => {
    const merged = mergeSandboxSettings([
      { enabled: true, excludedCommands: ["docker"], network: { allowedDomains: ["a.com"] } },
      { enabled: false, excludedCommands: ["git"], network: { allowedDomains: ["b.com"], allowLocalBinding: true } },
    ]);
    expect(merged).toEqual({
      enabled: false,
      excludedCommands: ["docker", "git"],
      network: { allowedDomains: ["a.com", "b.com"], allowLocalBinding: true },
    });
  });
});

describe("envFileFolders", () => {
  it("is the home folder and every folder above the workspace, but not the workspace, /tmp or /run", () => {
    expect(envFileFolders(["/home/u/code/p", "/home/u/code/p/sub"], "/home/u")).toEqual([
      "/home/u",
      "/home/u/code",
      "/home",
      "/",
    ]);
    expect(envFileFolders(["/tmp/ws/p"], "/home/u")).toEqual(["/home/u", "/"]);
  });
});
