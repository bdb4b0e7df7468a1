import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Whether this system has a Linux-style /proc (every process, its group and its environment). */
export const HAS_PROCFS = (() => {
  try {
    readFileSync("/proc/self/stat", "utf8");
    return true;
  } catch {
    return false;
  }
})();

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state from /proc: R, S, D, T (stopped), Z (zombie), X (dead), ... */
  state: string;
  /** Clock ticks after boot when the process started: with the pid, it names one process. */
  startTime: number;
}

export function readProcessInfo(pid: number | "self"): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses; the fields after the last ")" do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [state = "", ppid = "", pgid = ""] = fields;
  return {
    pid: Number.parseInt(stat, 10),
    state,
    ppid: Number(ppid),
    pgid: Number(pgid),
    startTime: Number(fields[19]),
  };
}

export function listProcesses(): ProcessInfo[] {
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

/**
 * Zombies count as gone: they have exited and only wait to be reaped (an init that never
 * reaps, common in containers, would otherwise keep them "alive").
 */
export const isGone = (info: ProcessInfo | undefined) => !info || info.state === "Z" || info.state === "X";

/** The environment a process was started with (NUL-separated), or undefined when unreadable. */
export function readEnviron(pid: number): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
}

/** This process's pid namespace ("pid:[4026531836]"): a pid from another namespace means nothing here. */
export function ownPidNamespace(): string | undefined {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}
