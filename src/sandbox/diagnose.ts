import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { errorMessage } from "../errors/index.js";
import { findProgram, probeNamespaces } from "./availability.js";
import { resolvePolicy } from "./policy.js";
import { OsSandbox } from "./sandbox.js";

/** One line of `gyre doctor`: what was checked, whether it holds, and what to do if not. */
export interface Check {
  name: string;
  /** `missing` only fails the whole report when the check is `required`. */
  status: "ok" | "missing";
  required: boolean;
  detail: string;
}

/**
 * What the OS sandbox needs, checked for real: bubblewrap and its version, user namespaces
 * (a trial bwrap), socat and nsenter (network allowances), and a trial sandboxed command
 * that must write in its workspace and must not write outside it.
 */
export async function diagnoseSandbox(searchPath: string | undefined): Promise<Check[]> {
  if (process.platform !== "linux") {
    return [missing("platform", true, `the sandbox needs Linux with bubblewrap; this is ${process.platform}`)];
  }
  const bwrap = findProgram("bwrap", searchPath);
  const checks: Check[] = [
    bwrap
      ? ok("bubblewrap", `${bwrap} (${versionOf(bwrap)})`)
      : missing("bubblewrap", true, "not on PATH: install it (apt-get install bubblewrap, dnf install bubblewrap)"),
  ];
  const socat = findProgram("socat", searchPath);
  checks.push(
    socat
      ? ok("socat", `${socat} (${versionOf(socat, "-V")})`, false)
      : missing("socat", false, "not on PATH: needed for sandbox.network.allowedDomains (apt-get install socat)"),
  );
  const nsenter = findProgram("nsenter", searchPath);
  checks.push(
    nsenter
      ? ok("nsenter", nsenter, false)
      : missing("nsenter", false, "not on PATH: networked commands start a relay each, slower (util-linux)"),
  );
  if (!bwrap) return checks;
  const problem = probeNamespaces(bwrap);
  checks.push(
    problem
      ? missing(
          "user namespaces",
          true,
          `bubblewrap cannot create namespaces (${problem}): allow unprivileged user namespaces ` +
            "(sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0), " +
            "or in a container use --privileged or a seccomp profile that allows them",
        )
      : ok("user namespaces", "bubblewrap can create user, PID and network namespaces"),
  );
  if (!problem) checks.push(await trialCommand(searchPath));
  return checks;
}

/** Run `echo` in a real sandbox over a scratch workspace: the write inside must land, the one outside must not. */
async function trialCommand(searchPath: string | undefined): Promise<Check> {
  const workspace = mkdtempSync(path.join(tmpdir(), "gyre-doctor-"));
  try {
    const policy = resolvePolicy({
      settings: { enabled: true },
      workspace: [workspace],
      rules: { allow: [], deny: [] },
      cwd: workspace,
      home: workspace,
    });
    const sandbox = await OsSandbox.start({ policy, ...(searchPath !== undefined && { searchPath }) });
    try {
      const outside = path.join(workspace, "..", `${path.basename(workspace)}-outside`);
      const script = `echo inside > inside.txt; echo outside > '${outside}' 2>/dev/null; echo done`;
      const { file, args } = sandbox.wrap("/bin/sh", ["-c", script], workspace);
      const output = await run(file, args);
      const wrote = existsSync(path.join(workspace, "inside.txt"));
      if (!wrote || !output.includes("done")) return missing("trial command", true, `it did not run: ${output.trim()}`);
      if (existsSync(outside)) {
        rmSync(outside, { force: true });
        return missing("trial command", true, "a sandboxed command wrote outside its workspace");
      }
      return ok("trial command", "a sandboxed command wrote in its workspace and nowhere else");
    } finally {
      await sandbox.close();
    }
  } catch (error) {
    return missing("trial command", true, errorMessage(error));
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", () => resolve(output));
  });
}

function versionOf(program: string, flag = "--version"): string {
  const result = spawnSync(program, [flag], { encoding: "utf8", timeout: 5000 });
  const lines = (result.stdout || result.stderr || "").trim().split("\n");
  // socat -V prints a banner line first, then "socat version 1.7.4.4 on …".
  return (lines.find((line) => /version|\d+\.\d+/.test(line)) ?? "version unknown").replace(/ on .*$/, "").trim();
}

function ok(name: string, detail: string, required = true): Check {
  return { name, status: "ok", required, detail };
}

function missing(name: string, required: boolean, detail: string): Check {
  return { name, status: "missing", required, detail };
}
