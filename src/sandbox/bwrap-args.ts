import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { missingProtectedFolders, protectedPathsIn } from "./paths.js";
import type { SandboxPolicy } from "./policy.js";

/** The port the in-sandbox relay listens on (inside the sandbox's own network namespace). */
export const PROXY_PORT = 3128;

export interface BwrapLayout {
  policy: SandboxPolicy;
  /** The sandbox's private temp (host path, mounted at the same path, writable; $TMPDIR). */
  temporaryDirectory: string;
  /** An empty file no one may read, mounted over denied files. */
  deniedFile: string;
  /** The proxy's unix socket, when network is allowed to some domains. */
  proxySocket?: string;
  /** Commands start inside the run's relay network namespace (nsenter): no new one. */
  joinsRelayNamespace?: boolean;
  /** Read-only besides the system, in the hidden /tmp and /run: a sandboxed server's own files (server-folders.ts). */
  readable?: readonly string[];
  /** The descriptor bubblewrap reads a seccomp filter from (see seccomp.ts). */
  seccompFd?: number;
}

/**
 * Kernel knobs under /proc that root may write by file mode alone (`kernel.core_pattern` runs
 * a program as root on the host): read-only, as when Gyre runs as root they would not be.
 */
const PROC_COVERS = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"];

/**
 * Only root (uid 0) can write those files by mode; anyone else, in the sandbox's user namespace
 * or not, cannot, so the four mounts (a tenth of a command's mount work) are spared.
 */
function procCovers(): string[] {
  if (process.getuid?.() !== 0) return [];
  return PROC_COVERS.filter((entry) => existsSync(entry)).flatMap((entry) => ["--ro-bind", entry, entry]);
}

type Mount = { target: string; args: string[]; rank: number };

/** The system read-only, with a fresh /dev and /proc: what every sandbox (and the probe of one) starts from. */
export const ROOT_MOUNTS: readonly string[] = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];

/**
 * bubblewrap arguments for the policy: the system read-only, fresh /dev and /proc, empty
 * read-only /tmp and /run, the workspace and temp writable, denied paths hidden, protected files read-only, and
 * new PID, network and IPC namespaces (a command's processes die with it; no network but the
 * proxy). Mounts are ordered by depth so that a deeper rule wins over the one above it.
 */
export function bwrapArgs(layout: BwrapLayout): string[] {
  const { policy } = layout;
  const mounts: Mount[] = [
    { target: "/tmp", args: ["--tmpfs", "/tmp"], rank: 0 },
    { target: "/run", args: ["--tmpfs", "/run"], rank: 0 },
    bind(layout.temporaryDirectory, true, 1),
    // Before a writable directory at the same depth; none inside one (it would turn read-only).
    ...(layout.readable ?? [])
      .filter((file) => !policy.writable.some((dir) => file === dir || isBelow(file, dir)))
      .map((file) => bind(file, false, 0.5)),
    ...policy.allowUnixSockets.map((socket) => bind(socket, false, 1)),
    ...policy.writable.map((dir) => bind(dir, true, 1)),
    // A writable .git mounted on itself cannot be renamed away and replaced by one whose hooks
    // the host's git would run (its read-only hooks and config below are mount points too).
    // A nested repository's folder and those between it and the workspace too: moved aside, a
    // planted repository could take its place where the outer one's index expects a submodule.
    ...[
      ...policy.writable.flatMap(gitFolderOf),
      ...policy.nestedRepositories.flatMap((dir) => nestedHolds(dir, policy)),
    ].map((folder) => bind(folder, !isBelowAny(folder, policy.denyWrite), 1)),
    ...policy.writable.flatMap((dir) => protectedPathsIn(dir)).map((file) => bind(file, false, 2)),
    ...policy.nestedRepositories.flatMap((dir) => protectedPathsIn(dir, true)).map((file) => bind(file, false, 2)),
    ...emptyFolderTargets(policy).map(emptyFolder),
    ...policy.denyWrite.map((file) => bind(file, false, 2)),
    ...policy.denyRead.map((file) => hide(file, layout.deniedFile, holdsMounts(file, layout))),
  ];
  if (layout.proxySocket) mounts.push(bind(layout.proxySocket, false, 1));
  const visible = mounts.filter((mount) => !concealed(mount.target, layout));
  visible.sort((a, b) => depth(a.target) - depth(b.target) || a.rank - b.rank);
  return [
    ...ROOT_MOUNTS,
    ...procCovers(),
    ...visible.flatMap((mount) => mount.args),
    // Read-only once the mounts inside it exist: a write to /tmp fails loudly instead of
    // vanishing into a tmpfs the host never sees ($TMPDIR is the writable temp).
    "--remount-ro",
    "/tmp",
    // Gyre may run as root: without this the command would keep root's capabilities and could
    // simply unmount what hides the denied paths.
    "--cap-drop",
    "ALL",
    ...(layout.seccompFd === undefined ? [] : ["--seccomp", String(layout.seccompFd)]),
    "--unshare-pid",
    ...(layout.joinsRelayNamespace ? [] : ["--unshare-net"]),
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    // A new session: the command cannot push keystrokes into the terminal Gyre runs in (TIOCSTI).
    "--new-session",
    "--setenv",
    "TMPDIR",
    layout.temporaryDirectory,
    "--setenv",
    "GYRE_SANDBOX",
    "1",
    ...proxyEnvironment(layout.proxySocket),
  ];
}

/**
 * Protected folders missing from the workspace (`.claude/`, `.git/hooks/`, …): an empty read-only
 * folder is mounted at each, for which bubblewrap creates the folder on the host (see mount-points.ts).
 */
export function emptyFolderTargets(policy: SandboxPolicy): string[] {
  return [
    ...policy.writable.flatMap((dir) => missingProtectedFolders(dir)),
    ...policy.nestedRepositories.flatMap((dir) => missingProtectedFolders(dir, true)),
  ];
}

function bind(target: string, writable: boolean, rank: number): Mount {
  return { target, args: [writable ? "--bind" : "--ro-bind", target, target], rank };
}

function emptyFolder(target: string): Mount {
  return { target, args: ["--perms", "0555", "--tmpfs", target, "--remount-ro", target], rank: 2 };
}

/**
 * A denied directory becomes an empty, inaccessible tmpfs; a denied file, an unreadable empty
 * file. A denied directory that holds a writable one (`denyRead: ["~"]` with the workspace in
 * ~/project) stays traversable and writable, empty but for the mounts that lead to it.
 */
function hide(target: string, deniedFile: string, holdsMounts: boolean): Mount {
  if (!isDirectory(target)) return { target, args: ["--ro-bind", deniedFile, target], rank: 3 };
  const args = holdsMounts
    ? ["--perms", "0755", "--tmpfs", target]
    : ["--perms", "0000", "--tmpfs", target, "--remount-ro", target];
  return { target, args, rank: 3 };
}

/** What a hidden folder keeps reachable: the writable directories, the temp, the proxy socket. */
function shown(layout: BwrapLayout): string[] {
  return [...layout.policy.writable, layout.temporaryDirectory, ...(layout.proxySocket ? [layout.proxySocket] : [])];
}

/** Whether a writable directory, the temp or the proxy socket lies below `dir`. */
function holdsMounts(dir: string, layout: BwrapLayout): boolean {
  return shown(layout).some((target) => isBelow(target, dir));
}

/**
 * Whether `target` lies in a hidden folder with no shown directory between them (`~/.ssh` or
 * `~/.env` under `denyRead: ["~"]`): already unreadable, and a mount there would fail the command
 * (the hidden folder is read-only; bubblewrap could not make the mount point).
 */
function concealed(target: string, layout: BwrapLayout): boolean {
  const { denyRead } = layout.policy;
  return denyRead.some(
    (hidden) =>
      isBelow(target, hidden) &&
      !shown(layout).some((dir) => (target === dir || isBelow(target, dir)) && isBelow(dir, hidden)),
  );
}

/** Whether `target` is one of `dirs` or lies below one (a mount on itself must keep a read-only one read-only). */
function isBelowAny(target: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => target === dir || isBelow(target, dir));
}

function isBelow(target: string, dir: string): boolean {
  return target.startsWith(dir === path.sep ? dir : `${dir}${path.sep}`);
}

function proxyEnvironment(socket: string | undefined): string[] {
  if (!socket) return [];
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  const names = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"];
  const env = [...names.flatMap((name) => ["--setenv", name, url]), "--setenv", "GYRE_SANDBOX_PROXY_SOCKET", socket];
  // Everything goes through the proxy, local addresses too: it alone decides.
  return [...env, "--unsetenv", "NO_PROXY", "--unsetenv", "no_proxy"];
}

function depth(target: string): number {
  return target.split(path.sep).filter(Boolean).length;
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}

/** A nested repository, its `.git` folder, and the folders between it and its workspace directory. */
function nestedHolds(repository: string, policy: SandboxPolicy): string[] {
  const root = policy.writable.filter((dir) => isBelow(repository, dir)).sort((a, b) => b.length - a.length)[0];
  const between: string[] = [];
  for (let dir = path.dirname(repository); root && isBelow(dir, root); dir = path.dirname(dir)) between.push(dir);
  return [...between, repository, ...gitFolderOf(repository)];
}

function gitFolderOf(dir: string): string[] {
  const folder = path.join(dir, ".git");
  return isDirectory(folder) ? [folder] : [];
}
