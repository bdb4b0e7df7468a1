import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { PROXY_PORT } from "./bwrap-args.js";

/** 127.0.0.1:3128 in /proc/net/tcp, and the LISTEN state. */
const LISTEN_ADDRESS = `0100007F:${PROXY_PORT.toString(16).toUpperCase().padStart(4, "0")}`;
const LISTEN_STATE = "0A";
const READY_POLLS = 2000;

interface Programs {
  bwrap: string;
  socat: string;
  nsenter: string;
}

/**
 * One network namespace per run where socat relays 127.0.0.1:3128 to the proxy's socket:
 * commands join it through nsenter instead of each starting its own relay (the relay's start
 * was most of a networked command's added time). It holds nothing else: a command in it
 * still reaches only the proxy. Its loopback is shared by the run's commands: without
 * `allowLocalBinding` none of them can listen (seccomp), so the relay is all there is; with it,
 * a server one command leaves running is reachable by the run's later commands, all of them
 * one agent's under one policy, so nothing is gained by it (never by the host or another run).
 * A command cannot signal the relay (another PID namespace) nor take its port while it lives. Gyre keeps descriptors of the namespaces open and commands
 * join those, never a `/proc/<pid>` path that a reused process id could point elsewhere; if
 * the relay dies, the namespace stays, empty, and connections fail.
 */
export class RelayNamespace {
  readonly #holder: ChildProcess;
  readonly #descriptors: number[];
  /** nsenter and its arguments, up to the program it runs. */
  readonly prefix: string[];

  private constructor(holder: ChildProcess, descriptors: number[], prefix: string[]) {
    this.#holder = holder;
    this.#descriptors = descriptors;
    this.prefix = prefix;
  }

  /** Start the relay; undefined when this host cannot (the caller relays per command instead). */
  static async start(programs: Programs, proxySocket: string): Promise<RelayNamespace | undefined> {
    // Unprivileged, the network namespace belongs to a new user namespace that nsenter joins first.
    const ownUser = process.getuid?.() !== 0;
    const holder = spawn(
      programs.bwrap,
      [
        "--ro-bind",
        "/",
        "/",
        "--unshare-net",
        ...(ownUser ? ["--unshare-user"] : []),
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--info-fd",
        "3",
        "--",
        programs.socat,
        `TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr`,
        `UNIX-CONNECT:${proxySocket}`,
      ],
      { stdio: ["ignore", "ignore", "ignore", "pipe"] },
    );
    const descriptors: number[] = [];
    const relay = await joinable(holder, programs.nsenter, ownUser, descriptors).catch(() => undefined);
    if (relay) return new RelayNamespace(holder, descriptors, [programs.nsenter, ...relay, "--"]);
    for (const fd of descriptors) closeSync(fd);
    holder.kill("SIGKILL");
    return undefined;
  }

  close(): void {
    this.#holder.kill("SIGKILL");
    for (const fd of this.#descriptors.splice(0)) closeSync(fd);
  }
}

/** nsenter's namespace arguments once the relay listens and a trial join works; undefined otherwise. */
async function joinable(
  holder: ChildProcess,
  nsenter: string,
  ownUser: boolean,
  descriptors: number[],
): Promise<string[] | undefined> {
  const info = await readInfo(holder);
  const pid = info["child-pid"];
  if (typeof pid !== "number") return undefined;
  const namespaces: Array<[string, string]> = [["net", "net-namespace"]];
  if (ownUser) namespaces.unshift(["user", "user-namespace"]);
  const args: string[] = [];
  for (const [kind, key] of namespaces) {
    const fd = openSync(`/proc/${pid}/ns/${kind}`, "r");
    descriptors.push(fd);
    // The inode bwrap reported: the process id was not reused between its report and the open.
    const expected = info[key];
    if (expected !== undefined && fstatSync(fd).ino !== expected) return undefined;
    args.push(`--${kind}=/proc/${process.pid}/fd/${fd}`);
  }
  if (ownUser) args.push("--preserve-credentials");
  if (!(await listening(pid, holder))) return undefined;
  return (await succeeds(nsenter, [...args, "--", "true"])) ? args : undefined;
}

function readInfo(holder: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const stream = holder.stdio[3];
    if (!stream) return reject(new Error("no info pipe"));
    // bwrap writes one JSON object; the pipe may stay open after it.
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      } catch {
        // not complete yet
      }
    });
    stream.once("end", () => reject(new Error("bwrap gave no namespace information")));
    holder.once("error", reject);
  });
}

/** Whether socat listens in the namespace (its /proc/<pid>/net/tcp), before the holder exits. */
async function listening(pid: number, holder: ChildProcess): Promise<boolean> {
  for (let poll = 0; poll < READY_POLLS && holder.exitCode === null; poll++) {
    const table = readTable(pid);
    if (table === undefined) return false;
    const listens = table.split("\n").some((line) => {
      const [, address, , state] = line.trim().split(/\s+/);
      return address === LISTEN_ADDRESS && state === LISTEN_STATE;
    });
    if (listens) return true;
    await delay(1);
  }
  return false;
}

function readTable(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/net/tcp`, "utf8");
  } catch {
    return undefined;
  }
}

/** Whether `file args` exits 0 (the trial join: a container may forbid setns). */
function succeeds(file: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  });
}
