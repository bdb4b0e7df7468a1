import path from "node:path";
import type { SandboxViolation } from "../tools/builtin/index.js";
import type { SandboxPolicy } from "./policy.js";
import type { BlockedConnection } from "./proxy.js";

const MAX_REPORTED = 10;

/**
 * What the sandbox blocked during one command: the proxy's refusals (exact), and denied
 * writes and reads as the command's own error messages show them (`Read-only file system`
 * on a path, `Permission denied` or `No such file` on a denied path), and direct connections
 * the empty network namespace refused.
 */
export function findViolations(
  output: string,
  blocked: readonly BlockedConnection[],
  policy: SandboxPolicy,
  temporaryDirectory: string,
  cwd: string,
): SandboxViolation[] {
  const found = new Map<string, SandboxViolation>();
  const add = (violation: SandboxViolation) => found.set(`${violation.kind} ${violation.target}`, violation);
  const writable = [...policy.writable, temporaryDirectory].join(", ");
  const network = policy.allowedDomains.length > 0 ? policy.allowedDomains.join(", ") : "none";
  for (const connection of blocked) {
    const target = `${connection.host}:${connection.port}`;
    add({
      kind: "network",
      target,
      message: `connection to ${target} denied by the sandbox; allowed hosts (through the proxy): ${network}`,
    });
  }
  for (const line of output.split("\n")) {
    if (/read-only file system/i.test(line)) {
      const target = pathIn(line, cwd) ?? "(a path outside the writable directories)";
      add({ kind: "write", target, message: `write to ${target} denied by the sandbox; writable: ${writable}` });
    } else if (/permission denied|no such file or directory/i.test(line)) {
      const target = pathIn(line, cwd);
      const denied = target && policy.denyRead.find((dir) => target === dir || target.startsWith(`${dir}/`));
      if (denied)
        add({ kind: "read", target, message: `read of ${target} denied by the sandbox (${denied} is not readable)` });
    } else if (
      /could not resolve host|network is unreachable|couldn't connect to server|ECONNREFUSED|EAI_AGAIN|ENETUNREACH/i.test(
        line,
      )
    ) {
      add({
        kind: "network",
        target: "(direct connection)",
        message: `direct network access denied by the sandbox: commands reach the network only through its HTTP(S) proxy (HTTP_PROXY), to: ${network}`,
      });
    }
  }
  return [...found.values()].slice(0, MAX_REPORTED);
}

/**
 * The path an error line is about (relative ones resolved against `cwd`): the one right before the error text (`bash: /x: Read-only
 * file system`), else the first quoted one (`touch: cannot touch '/x': …`), else the first bare one.
 */
function pathIn(line: string, cwd: string): string | undefined {
  const before = /([^\s:'"]+): (?:read-only file system|permission denied|no such file)/i.exec(line);
  if (before?.[1] && (before[1].includes("/") || before[1].includes("."))) return path.resolve(cwd, before[1]);
  const quoted = /['"‘`](\/[^'"’`]*)['"’`]/.exec(line);
  if (quoted) return quoted[1];
  const bare = /(?:^|\s)(\/[^\s:'"]+)/.exec(line);
  return bare?.[1];
}
