import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";
import { GyreError } from "../errors/index.js";
import { ROOT_MOUNTS } from "./bwrap-args.js";

/** The programs the sandbox runs, found on PATH. */
export interface SandboxPrograms {
  bwrap: string;
  /** Needed only when some network is allowed (the relay to the proxy). */
  socat: string | undefined;
  /** Optional (util-linux): lets commands join one relay network namespace per run instead of starting a relay each. */
  nsenter: string | undefined;
}

const probed = new Map<string, string | undefined>();

/**
 * Find bubblewrap (and socat when `needSocat`) on `searchPath` and check once per process
 * that bubblewrap can create the namespaces the sandbox uses. Throws `sandbox_unavailable`
 * saying what to install or change: a run never goes on unsandboxed when it asked for the sandbox.
 */
export function findSandboxPrograms(searchPath: string | undefined, needSocat: boolean): SandboxPrograms {
  if (process.platform !== "linux") {
    throw unavailable(
      `the sandbox needs Linux with bubblewrap; this is ${process.platform}. Run Gyre on Linux (or in a Linux container) or turn sandbox.enabled off`,
    );
  }
  const bwrap = findProgram("bwrap", searchPath);
  if (!bwrap)
    throw unavailable(
      "bubblewrap (bwrap) is not installed or not on PATH: install it (apt-get install bubblewrap, dnf install bubblewrap)",
    );
  const socat = findProgram("socat", searchPath);
  if (needSocat && !socat) {
    throw unavailable(
      "socat is not installed or not on PATH; the sandbox needs it for sandbox.network.allowedDomains: install it (apt-get install socat)",
    );
  }
  if (!probed.has(bwrap)) probed.set(bwrap, probeNamespaces(bwrap));
  const problem = probed.get(bwrap);
  if (problem) {
    throw unavailable(
      `bubblewrap cannot create the sandbox's namespaces here (${problem}). Allow unprivileged user namespaces ` +
        "(sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu), " +
        "or in a container run it with --privileged or a seccomp profile that allows clone with new namespaces",
    );
  }
  return { bwrap, socat, nsenter: findProgram("nsenter", searchPath) };
}

/** Why bubblewrap cannot create the sandbox's namespaces here, or undefined when it can. */
export function probeNamespaces(bwrap: string): string | undefined {
  const args = [...ROOT_MOUNTS, "--unshare-pid", "--unshare-net", "--", "true"];
  const result = spawnSync(bwrap, args, { encoding: "utf8", timeout: 10_000 });
  if (result.error) return result.error.message;
  if (result.status === 0) return undefined;
  return result.stderr.trim().split("\n").at(-1) || `exit code ${result.status}`;
}

/** The first executable `name` on `searchPath` (a PATH value). */
export function findProgram(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      // The real file: socat runs inside the sandbox, where /tmp and /run are empty.
      return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return undefined;
}

function unavailable(reason: string): GyreError {
  return new GyreError("sandbox_unavailable", `The sandbox cannot start: ${reason}. No command was run.`);
}
