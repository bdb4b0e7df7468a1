import { hostname } from "node:os";

/** What a database lock row says about its holder. */
export interface LockHolder {
  owner: string;
  pid: number;
  host: string;
  heartbeatAt: number;
}

/** How long a holder may go without a heartbeat before its lock is taken over (default). */
export const DEFAULT_LOCK_TTL_MS = 60_000;

/** True while a process with this pid exists on this machine (EPERM: it exists, not ours). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A lock is stale when its holder died on this host, or (any host) when its heartbeat is
 * older than `ttlMs`: a holder on another machine can only be judged by its heartbeat.
 */
export function isLockStale(holder: LockHolder, now: number, ttlMs: number): boolean {
  if (holder.host === hostname() && !isProcessAlive(holder.pid)) return true;
  return now - holder.heartbeatAt > ttlMs;
}

/**
 * Who holds a lock, for `session_busy`. A holder in this very process (another run on the
 * same session) is said to be one, never named as a foreign process by our own pid.
 */
export function describeHolder(holder: Omit<LockHolder, "heartbeatAt">): string {
  const customOwner = holder.owner !== `pid ${holder.pid}`;
  if (holder.pid === process.pid && holder.host === currentHost())
    return `another run in this process${customOwner ? ` (${holder.owner})` : ""}`;
  const where = `pid ${holder.pid} on ${holder.host}`;
  return customOwner ? `${holder.owner} (${where})` : where;
}

export function currentHost(): string {
  return hostname();
}
