import { randomUUID } from "node:crypto";

/**
 * Environment variable that marks every process a tool call started: children inherit it,
 * so after the call its processes are found by scanning /proc even when they left the
 * process group (`setsid`, `nohup … &`). A command run by a Gyre inside a Gyre command
 * appends its own marker (comma-separated), so the outer call still finds it.
 *
 * Limit: a process that drops its environment (`env -i`, some daemons) loses the marker;
 * it is still found through its process group, or as a child of a marked process.
 */
export const MARKER_VARIABLE = "GYRE_TOOL_CALL";

/** A marker no other tool call, in this process or any other, will ever use. */
export function newMarker(): string {
  return randomUUID();
}

/** `env` with `marker` added to the markers it already carries. */
export function withMarker(env: Record<string, string>, marker: string): Record<string, string> {
  const outer = env[MARKER_VARIABLE];
  return { ...env, [MARKER_VARIABLE]: outer ? `${outer},${marker}` : marker };
}

const PREFIX = Buffer.from(`${MARKER_VARIABLE}=`);

/** Whether a NUL-separated environment block (as in /proc/<pid>/environ) carries `marker`. */
export function environHasMarker(environ: Buffer, marker: string): boolean {
  for (let at = environ.indexOf(PREFIX); at !== -1; at = environ.indexOf(PREFIX, at + 1)) {
    if (at > 0 && environ[at - 1] !== 0) continue;
    const end = environ.indexOf(0, at);
    const value = environ.toString("utf8", at + PREFIX.length, end === -1 ? environ.length : end);
    return value.split(",").includes(marker);
  }
  return false;
}
