import { HAS_PROCFS, isGone, listProcesses, type ProcessInfo, readEnviron, readProcessInfo } from "./proc-fs.js";
import { environHasMarker } from "./tool-call-marker.js";

/** How long `stopCommandProcesses` waits after SIGTERM before it freezes and kills, by default. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

const POLL_MS = 20;
/** Freeze-and-kill rounds before what is left is reported as surviving (a fork bomb needs a few). */
const KILL_ROUNDS = 10;
/** Rescans while freezing: each one stops the children forked since the last. */
const FREEZE_PASSES = 50;
/** How long one round waits for killed processes to disappear. */
const KILL_WAIT_MS = 500;

/** What a command's processes are found by. */
export interface StopTarget {
  /** The process group the command was started in (the shell's pid); undefined if it never started. */
  pgid: number | undefined;
  /** The marker in the command's environment (see tool-call-marker.ts). */
  marker?: string;
  /**
   * When the shell started, in /proc clock ticks: a process that started earlier cannot be
   * the command's, so its environment need not be read (most of a scan's cost).
   */
  startTime?: number;
}

/** What stopping a command's processes achieved, checked rather than assumed. */
export interface StopReport {
  /**
   * Processes found and stopped. Without /proc processes cannot be counted: then 1 when
   * the process group had any, else 0.
   */
  stopped: number;
  /** Pids still alive after the last round; without /proc, the group's id if the group survived. */
  survivors: number[];
  /**
   * `all`: processes were looked for by group, marker and parentage (Linux /proc); `group`:
   * only the process group could be looked at (other systems).
   */
  scope: "all" | "group";
}

/** What stopCommandProcesses needs from the system; tests stand in for it. */
export interface ProcessTable {
  list(): ProcessInfo[];
  hasMarker(pid: number, marker: string): boolean;
  signal(target: number, signal: NodeJS.Signals): void;
}

export const PROC_TABLE: ProcessTable = {
  list: listProcesses,
  hasMarker: (pid, marker) => {
    const environ = readEnviron(pid);
    return environ !== undefined && environHasMarker(environ, marker);
  },
  signal: sendSignal,
};

/** Whether `pid` is a live process (zombies are not). */
export function isProcessAlive(pid: number): boolean {
  if (HAS_PROCFS) return !isGone(readProcessInfo(pid));
  return signalExists(pid);
}

/**
 * Stop every process a command started: its process group, every process whose environment
 * carries its marker (found through /proc, so `setsid` and `nohup` children too), and the
 * children of all of those. SIGTERM first, then, after `graceMs`, rounds of freezing
 * (SIGSTOP, rescanning until nothing new runs, so a fork bomb cannot outpace us) and
 * SIGKILL, until a scan finds nothing or the rounds run out. The report says what survived.
 * Without /proc only the process group is signalled and checked.
 */
export async function stopCommandProcesses(
  target: StopTarget,
  options: { graceMs?: number } = {},
  table: ProcessTable | undefined = HAS_PROCFS ? PROC_TABLE : undefined,
): Promise<StopReport> {
  const graceMs = options.graceMs ?? DEFAULT_KILL_GRACE_MS;
  if (target.pgid === undefined) return { stopped: 0, survivors: [], scope: table ? "all" : "group" };
  if (!table) return stopGroup(target.pgid, graceMs);
  const search = new Search(table, { ...target, pgid: target.pgid });
  let alive = search.scan();
  if (alive.length > 0) alive = await terminate(search, alive, graceMs);
  let unchanged = 0;
  for (let round = 0; alive.length > 0 && round < KILL_ROUNDS && unchanged < 2; round += 1) {
    const before = pidList(alive);
    alive = await freeze(search, alive);
    search.signalAll(alive, "SIGKILL");
    alive = await waitForExit(search, KILL_WAIT_MS);
    // The same processes outliving SIGKILL twice (uninterruptible, or not ours) will not die now.
    unchanged = pidList(alive) === before ? unchanged + 1 : 0;
  }
  return {
    stopped: search.foundCount - alive.length,
    survivors: alive.map((info) => info.pid).sort((a, b) => a - b),
    scope: "all",
  };
}

/** Finds a command's live processes; remembers each one found so it is not lost when it leaves the group. */
class Search {
  readonly #known = new Map<number, number>();

  readonly pgid: number;

  constructor(
    readonly table: ProcessTable,
    readonly target: StopTarget & { pgid: number },
  ) {
    this.pgid = target.pgid;
  }

  /** Processes found so far, alive or not. */
  get foundCount(): number {
    return this.#known.size;
  }

  scan(): ProcessInfo[] {
    const live = this.table.list().filter((info) => !isGone(info) && info.pid > 1 && info.pid !== process.pid);
    const found = new Map<number, ProcessInfo>();
    for (const info of live) if (this.#belongs(info)) found.set(info.pid, info);
    // Children of the command's processes are the command's too, even those started with `env -i`.
    const children = new Map<number, ProcessInfo[]>();
    for (const info of live) {
      const siblings = children.get(info.ppid);
      if (siblings) siblings.push(info);
      else children.set(info.ppid, [info]);
    }
    const queue = [...found.values()];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const child of children.get(next.pid) ?? []) {
        if (found.has(child.pid)) continue;
        found.set(child.pid, child);
        queue.push(child);
      }
    }
    for (const info of found.values()) this.#known.set(info.pid, info.startTime);
    return [...found.values()];
  }

  signalAll(processes: ProcessInfo[], signal: NodeJS.Signals): void {
    this.table.signal(-this.pgid, signal);
    for (const info of processes) this.table.signal(info.pid, signal);
  }

  #belongs(info: ProcessInfo): boolean {
    if (info.pgid === this.pgid) return true;
    // Same pid and start time: the same process, not a newcomer that reused the pid.
    if (this.#known.get(info.pid) === info.startTime) return true;
    const { marker, startTime = 0 } = this.target;
    return marker !== undefined && info.startTime >= startTime && this.table.hasMarker(info.pid, marker);
  }
}

/** SIGTERM, so commands can clean up; resolves with whatever is still alive after the grace period. */
async function terminate(search: Search, alive: ProcessInfo[], graceMs: number): Promise<ProcessInfo[]> {
  const told = new Set<number>();
  const deadline = Date.now() + graceMs;
  search.table.signal(-search.pgid, "SIGTERM");
  for (;;) {
    const fresh = alive.filter((info) => !told.has(info.pid));
    for (const info of fresh) told.add(info.pid);
    search.signalAll(fresh, "SIGTERM");
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await delay(POLL_MS);
    alive = search.scan();
  }
}

const pidList = (processes: ProcessInfo[]) =>
  processes
    .map((info) => info.pid)
    .sort((a, b) => a - b)
    .join(",");

const isStopped = (info: ProcessInfo) => info.state === "T" || info.state === "t";

/** SIGSTOP everything, rescanning until no process runs: a frozen process cannot fork. */
async function freeze(search: Search, alive: ProcessInfo[]): Promise<ProcessInfo[]> {
  for (let pass = 0; pass < FREEZE_PASSES; pass += 1) {
    const running = alive.filter((info) => !isStopped(info));
    if (running.length === 0) return alive;
    search.signalAll(running, "SIGSTOP");
    await delay(1);
    alive = search.scan();
  }
  return alive;
}

async function waitForExit(search: Search, timeoutMs: number): Promise<ProcessInfo[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = search.scan();
  while (alive.length > 0 && Date.now() < deadline) {
    await delay(5);
    alive = search.scan();
  }
  return alive;
}

/** Where there is no /proc: signal the process group and check it by signal 0. */
async function stopGroup(pgid: number, graceMs: number): Promise<StopReport> {
  const groupAlive = () => signalExists(-pgid);
  if (!groupAlive()) return { stopped: 0, survivors: [], scope: "group" };
  sendSignal(-pgid, "SIGTERM");
  if (!(await waitUntil(() => !groupAlive(), graceMs))) {
    sendSignal(-pgid, "SIGKILL");
    await waitUntil(() => !groupAlive(), KILL_WAIT_MS * 2);
  }
  return { stopped: 1, survivors: groupAlive() ? [pgid] : [], scope: "group" };
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
    // ESRCH: already gone. EPERM: not ours to signal; it shows up as a survivor.
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
  return true;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
