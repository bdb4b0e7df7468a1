import { hostname } from "node:os";
import { HAS_PROCFS, isGone, ownPidNamespace, readProcessInfo } from "./proc-fs.js";

/** Which process a spill directory belongs to, precisely enough to tell when it has gone. */
export interface SpillOwner {
  pid: number;
  host: string;
  /** The process's start time in clock ticks after boot (Linux), so a reused pid is not taken for it. */
  start?: number;
  /** Its pid namespace (Linux): a pid from another container's namespace says nothing here. */
  pidNamespace?: string;
}

/** The owner record of process `pid` on this machine (default: this process). */
export function ownerOf(pid: number = process.pid): SpillOwner {
  const owner: SpillOwner = { pid, host: hostname() };
  if (HAS_PROCFS) {
    const start = readProcessInfo(pid)?.startTime;
    const pidNamespace = ownPidNamespace();
    if (start !== undefined) owner.start = start;
    if (pidNamespace !== undefined) owner.pidNamespace = pidNamespace;
  }
  return owner;
}

/**
 * `dead` only when that is certain: the owner ran on this host, in this pid namespace, and
 * its pid is gone or now belongs to a process that started at another time. An owner on
 * another host or in another container is `unknown` (judged by age by the caller).
 */
export function ownerState(owner: SpillOwner): "alive" | "dead" | "unknown" {
  if (owner.host !== hostname()) return "unknown";
  if (!HAS_PROCFS) return signalExists(owner.pid) ? "alive" : "dead";
  if (owner.pidNamespace !== undefined && owner.pidNamespace !== ownPidNamespace()) return "unknown";
  const info = readProcessInfo(owner.pid);
  if (isGone(info)) return "dead";
  return owner.start === undefined || info!.startTime === owner.start ? "alive" : "dead";
}

/** Parse an owner record; undefined when it is not one. */
export function parseOwner(text: string): SpillOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<SpillOwner> | null;
    if (typeof value?.pid !== "number" || typeof value.host !== "string") return undefined;
    return value as SpillOwner;
  } catch {
    return undefined;
  }
}

function signalExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
