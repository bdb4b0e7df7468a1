import { readdirSync, readFileSync } from "node:fs";

/** How long `killProcessTree` waits after SIGTERM before sending SIGKILL, by default. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

const POLL_MS = 20;
const HAS_PROCFS = (() => {
  try {
    readFileSync("/proc/self/stat", "utf8");
    return true;
  } catch {
    return false;
  }
})();

interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state from /proc: R, S, D, Z (zombie), X (dead), ... */
  state: string;
}

function readProcessInfo(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses; the fields after the last ")" do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [state = "", ppid = "", pgid = ""] = fields;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

function listProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const processes: ProcessInfo[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcessInfo(Number(entry));
    if (info) processes.push(info);
  }
  return processes;
}

const isGone = (info: ProcessInfo | undefined) => !info || info.state === "Z" || info.state === "X";

/**
 * Whether `pid` is a live process. Zombies count as dead: they have exited and only wait to
 * be reaped (an init that never reaps, common in containers, would otherwise keep them "alive").
 */
export function isProcessAlive(pid: number): boolean {
  if (HAS_PROCFS) return !isGone(readProcessInfo(pid));
  return signalExists(pid);
}

/** Whether any live process is still in process group `pgid`. */
export function isGroupAlive(pgid: number): boolean {
  if (HAS_PROCFS) return listProcesses().some((info) => info.pgid === pgid && !isGone(info));
  return signalExists(-pgid);
}

/**
 * Live descendants of `pid` (children, grandchildren, ...). Only known where /proc exists;
 * elsewhere the process group alone is relied on.
 */
export function listDescendants(pid: number): number[] {
  if (!HAS_PROCFS) return [];
  const children = new Map<number, number[]>();
  for (const info of listProcesses()) {
    if (isGone(info)) continue;
    const siblings = children.get(info.ppid) ?? [];
    siblings.push(info.pid);
    children.set(info.ppid, siblings);
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

function signalExists(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sendSignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // ESRCH: already gone. EPERM: not ours to kill. Either way there is nothing more to do.
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

export interface KillTreeOptions {
  /** Milliseconds between SIGTERM and SIGKILL (default 2000). */
  graceMs?: number;
}

/**
 * Stop a command and everything it started: SIGTERM to its process group and to any
 * descendants that left the group (e.g. via `setsid`), then SIGKILL to whatever is still
 * alive after the grace period. Resolves once all of them are gone (or, if something
 * survives SIGKILL — an uninterruptible sleep — after one more bounded wait).
 *
 * `pgid` is the pid of a process started as a group leader (`detached: true`, or a pty).
 */
export async function killProcessTree(pgid: number, options: KillTreeOptions = {}): Promise<void> {
  const graceMs = options.graceMs ?? DEFAULT_KILL_GRACE_MS;
  const strays = listDescendants(pgid);
  const allGone = () => !isGroupAlive(pgid) && strays.every((pid) => !isProcessAlive(pid));
  sendSignal(-pgid, "SIGTERM");
  for (const pid of strays) sendSignal(pid, "SIGTERM");
  if (await waitUntil(allGone, graceMs)) return;
  sendSignal(-pgid, "SIGKILL");
  for (const pid of [...strays, ...listDescendants(pgid)]) {
    if (isProcessAlive(pid)) sendSignal(pid, "SIGKILL");
  }
  await waitUntil(allGone, 1_000);
}
