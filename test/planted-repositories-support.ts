import { execSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A workspace (a repository with one commit when `repository`), a remote to fetch from, and a
 * folder for markers; the caller removes `cwd` and `outside`.
 */
export function plantedWorkspace(repository: boolean) {
  const cwd = mkdtempSync(join(tmpdir(), "gyre-planted-ws-"));
  const outside = mkdtempSync("/var/tmp/gyre-planted-out-");
  const git = (args: string, dir = cwd) =>
    execSync(`git -c user.name=t -c user.email=t@t ${args}`, { cwd: dir, stdio: "pipe", encoding: "utf8" });
  const remote = join(outside, "remote");
  mkdirSync(remote);
  git("init -q", remote);
  git("commit -q --allow-empty -m remote", remote);
  if (repository) {
    git("init -q");
    writeFileSync(join(cwd, "a.txt"), "a");
    git("add a.txt");
    git("commit -qm first");
  }
  return { cwd, outside, remote, git };
}

/**
 * The host's git as a user runs it in `dir` after the run: status, a commit and a fetch. Their
 * failures do not matter (a repository set aside is no repository any more); what they run does.
 */
export function hostGit(dir: string, remote: string): void {
  const run = (args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, stdio: "ignore" });
  run(["status"]);
  writeFileSync(join(dir, "host-change.txt"), String(Math.random()));
  run(["add", "host-change.txt"]);
  run(["commit", "-qm", "host"]);
  run(["fetch", "-q", remote, "+refs/heads/*:refs/remotes/r/*"]);
}

/** Shell text that makes git run `touch <marker>`: in the repository's config (an fsmonitor) and as hooks. */
export function plantIn(gitDir: string, marker: string): string {
  const hook = `printf '#!/bin/sh\\ntouch ${marker}\\n'`;
  return [
    `git --git-dir=${gitDir} config core.fsmonitor 'touch ${marker}; false'`,
    `mkdir -p ${gitDir}/hooks`,
    ...["pre-commit", "reference-transaction"].map((name) => `${hook} > ${gitDir}/hooks/${name}`),
    `chmod +x ${gitDir}/hooks/*`,
  ].join(" && ");
}
