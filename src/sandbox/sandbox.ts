import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CommandSandbox, SandboxViolation, SandboxWatch } from "../tools/builtin/index.js";
import { findSandboxPrograms, type SandboxPrograms } from "./availability.js";
import { type BwrapLayout, bwrapArgs, emptyFolderTargets, PROXY_PORT } from "./bwrap-args.js";
import { CommandWatch, type WatchedSandbox } from "./command-watch.js";
import { EnvFileWatch } from "./env-files.js";
import { GitlinkGuard } from "./gitlinks.js";
import { MountPoints } from "./mount-points.js";
import { lstatOrNone, missingProtectedFiles } from "./paths.js";
import { PlantedRepositoryGuard } from "./planted-repositories.js";
import { isExcluded, type SandboxPolicy } from "./policy.js";
import { FilteringProxy } from "./proxy.js";
import { RelayNamespace } from "./relay-namespace.js";
import { sandboxFilter } from "./seccomp.js";
import { serverFolders } from "./server-folders.js";
import { findViolations } from "./violations.js";

export interface StartSandboxOptions {
  policy: SandboxPolicy;
  /** Where bwrap and socat are looked for (default: this process's PATH). */
  searchPath?: string;
}

/**
 * One run's OS sandbox (bubblewrap): a private folder (the commands' temp, an unreadable
 * stand-in for denied files, the proxy's socket) and, when some domains are allowed, the
 * filtering proxy. Every Bash command of the run is wrapped with the same arguments.
 */
export class OsSandbox implements CommandSandbox {
  readonly temporaryDirectory: string;
  readonly #programs: SandboxPrograms;
  readonly #folder: string;
  #args: string[];
  #layout: BwrapLayout;
  readonly #proxy: FilteringProxy | undefined;
  readonly #relay: RelayNamespace | undefined;
  /** The seccomp filter's file, opened as descriptor SECCOMP_FD for bubblewrap. */
  readonly #seccomp: string | undefined;
  /** Denied paths (those that appeared during the run included) and those still missing. */
  #denyRead: string[];
  #denyReadMissing: string[];
  readonly #envFiles: EnvFileWatch;
  readonly #gitlinks: GitlinkGuard;
  readonly #repositories: PlantedRepositoryGuard;
  readonly #mountPoints = new MountPoints();
  /** The watches of ended commands whose findings wait for a report: the close reports them. */
  readonly #held = new Set<CommandWatch>();
  readonly #watched: WatchedSandbox;

  private constructor(
    readonly policy: SandboxPolicy,
    programs: SandboxPrograms,
    folder: string,
    gitlinks: GitlinkGuard,
    repositories: PlantedRepositoryGuard,
    network: { proxy: FilteringProxy; relay: RelayNamespace | undefined } | undefined,
  ) {
    this.#programs = programs;
    this.#gitlinks = gitlinks;
    this.#repositories = repositories;
    this.#folder = folder;
    this.#proxy = network?.proxy;
    this.#relay = network?.relay;
    this.temporaryDirectory = path.join(folder, "tmp");
    this.#seccomp = seccompFilterFile(policy, folder, network !== undefined && this.#relay === undefined);
    this.#denyRead = policy.denyRead;
    this.#denyReadMissing = policy.denyReadMissing;
    const writable = (file: string) => policy.writable.some((dir) => file.startsWith(`${dir}${path.sep}`));
    this.#envFiles = new EnvFileWatch(policy.envFileFolders, writable);
    this.#layout = {
      policy: { ...policy, denyRead: [...new Set([...policy.denyRead, ...this.#envFiles.files])] },
      temporaryDirectory: this.temporaryDirectory,
      deniedFile: path.join(folder, "denied"),
      proxySocket: network?.proxy.socketPath,
      joinsRelayNamespace: this.#relay !== undefined,
      ...(this.#seccomp && { seccompFd: SECCOMP_FD }),
    };
    this.#args = bwrapArgs(this.#layout);
    this.#watched = this.#watchedSandbox();
  }

  /**
   * The arguments, computed once per run, again when a denied path missing so far appeared
   * on the host (a stat per such path per command: it cannot be mounted over before it exists)
   * or the `.env*` files around the workspace changed (a stat per watched folder).
   */
  #currentArgs(): string[] {
    const appeared = this.#denyReadMissing.filter((file) => existsSync(file));
    const envChanged = this.#envFiles.refresh();
    if (appeared.length === 0 && !envChanged) return this.#args;
    this.#denyRead = [...this.#denyRead, ...appeared.map(realOrSame)];
    this.#denyReadMissing = this.#denyReadMissing.filter((file) => !appeared.includes(file));
    const denyRead = [...new Set([...this.#denyRead, ...this.#envFiles.files])];
    const policy = { ...this.#layout.policy, denyRead, denyReadMissing: this.#denyReadMissing };
    this.#layout = { ...this.#layout, policy };
    this.#args = bwrapArgs(this.#layout);
    return this.#args;
  }

  /** Check that the sandbox can run here (throws `sandbox_unavailable`), then prepare it. */
  static async start(options: StartSandboxOptions): Promise<OsSandbox> {
    const { policy } = options;
    const needsNetwork = policy.allowedDomains.length > 0;
    const programs = findSandboxPrograms(options.searchPath ?? process.env.PATH, needsNetwork);
    const folder = mkdtempSync(path.join(tmpdir(), "gyre-sandbox-"));
    try {
      mkdirSync(path.join(folder, "tmp"), { mode: 0o700 });
      const denied = path.join(folder, "denied");
      writeFileSync(denied, "");
      chmodSync(denied, 0o000);
      const pendingGitlinks = GitlinkGuard.start(
        policy.writable,
        policy.nestedRepositories,
        policy.allowUnsandboxedCommands,
      );
      const network = needsNetwork ? await startNetwork(programs, folder, policy.allowedDomains) : undefined;
      const repositories = new PlantedRepositoryGuard(policy.writable, policy.allowUnsandboxedCommands);
      return new OsSandbox(policy, programs, folder, await pendingGitlinks, repositories, network);
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  get allowsUnsandboxed(): boolean {
    return this.policy.allowUnsandboxedCommands;
  }

  confines(input: { command: string; dangerouslyDisableSandbox?: boolean }): boolean {
    if (input.dangerouslyDisableSandbox === true && this.policy.allowUnsandboxedCommands) return false;
    return !isExcluded(input.command, this.policy.excludedCommands);
  }

  wrap(file: string, args: readonly string[], cwd: string): { file: string; args: string[] } {
    const current = this.#currentArgs();
    this.#mountPoints.starting(emptyFolderTargets(this.#layout.policy));
    return this.#wrapWith(current, file, args, cwd);
  }

  /**
   * `wrap` for a stdio MCP server: its program's and script's folders stay visible (read-only)
   * when they lie under /tmp or /run, which the sandbox hides (see server-folders.ts).
   * `searchPath`: the PATH the server starts with.
   */
  wrapServer(
    file: string,
    args: readonly string[],
    cwd: string,
    searchPath: string | undefined = process.env.PATH,
  ): { file: string; args: string[] } {
    const readable = serverFolders(file, args, cwd, searchPath);
    const current = this.#currentArgs();
    // A server runs until the run closes: its mount points stay until then.
    this.#mountPoints.begin(true);
    this.#mountPoints.starting(emptyFolderTargets(this.#layout.policy));
    const bwrap = readable.length === 0 ? current : bwrapArgs({ ...this.#layout, readable });
    return this.#wrapWith(bwrap, file, args, cwd);
  }

  #wrapWith(current: string[], file: string, args: readonly string[], cwd: string): { file: string; args: string[] } {
    const relayed = this.#proxy && !this.#relay;
    const command = relayed ? ["/bin/sh", "-c", relayScript(this.#programs.socat ?? "socat"), file] : [file];
    const bwrap = [...current, "--chdir", cwd, "--", ...command, ...args];
    const [file0, ...args0] = this.#relay
      ? [...this.#relay.prefix, this.#programs.bwrap, ...bwrap]
      : [this.#programs.bwrap, ...bwrap];
    if (!this.#seccomp) return { file: file0 ?? this.#programs.bwrap, args: args0 };
    // bubblewrap reads the filter from a descriptor: the shell opens it, then becomes the rest.
    const opener = `exec ${SECCOMP_FD}<"$0" && exec "$@"`;
    return { file: "/bin/sh", args: ["-c", opener, this.#seccomp, file0 ?? this.#programs.bwrap, ...args0] };
  }

  watch(cwd: string): SandboxWatch {
    this.#mountPoints.begin();
    return new CommandWatch(this.#watched, cwd);
  }

  /**
   * Undo what sandboxed commands set up for the host to run, of every command so far (a
   * background one's too): protected files created, repositories planted at submodule paths
   * (gitlinks.ts) and anywhere in the workspace (planted-repositories.ts).
   */
  #settle(missing: readonly string[]): SandboxViolation[] {
    return [...removeCreated(missing), ...this.#gitlinks.check(), ...this.#repositories.check()];
  }

  #watchedSandbox(): WatchedSandbox {
    return {
      missingFiles: () => missingProtectedFiles(this.policy.writable, this.policy.nestedRepositories),
      settle: (missing) => this.#settle(missing),
      blockedCount: () => this.#proxy?.blocked.length ?? 0,
      blocked: (output, from, cwd) => {
        const blocked = this.#proxy?.blocked ?? [];
        // The layout's policy, read now: it hides the denied paths that appeared since the run started.
        const violations = findViolations(
          output,
          blocked.slice(from),
          this.#layout.policy,
          this.temporaryDirectory,
          cwd,
        );
        return { violations, to: blocked.length };
      },
      ended: () => this.#mountPoints.ended(),
      holding: (watch, held) => (held ? this.#held.add(watch) : this.#held.delete(watch)),
    };
  }

  /**
   * Stop the proxy and remove the private folder (the commands' temp files with it). Checks the
   * gitlinks a last time and resolves with what that found (already set aside): the caller stops
   * the background commands and sandboxed servers first, so that one planting a repository after
   * the last foreground command is caught.
   */
  async close(): Promise<SandboxViolation[]> {
    this.#relay?.close();
    await this.#proxy?.close();
    rmSync(this.#folder, { recursive: true, force: true });
    const held = [...this.#held].flatMap((watch) => watch.takeHeld());
    this.#held.clear();
    const found = this.#settle([]);
    this.#mountPoints.removeOurs();
    return [...held, ...found];
  }
}

/**
 * Protected files (`.mcp.json`, …) the command created, removed again: they would configure
 * the next run, which no sandboxed command may do.
 */
function removeCreated(missing: readonly string[]): SandboxViolation[] {
  return missing.flatMap((file) => {
    // lstat: a dangling link counts (git follows it once its target appears).
    if (!lstatOrNone(file)) return [];
    rmSync(file, { recursive: true, force: true });
    return [
      {
        kind: "write" as const,
        target: file,
        message: `creating ${file} denied by the sandbox (it configures the agent); it was removed`,
      },
    ];
  });
}

const SECCOMP_FD = 3;

/**
 * The seccomp filter's file (see seccomp.ts: unix sockets unless `network.allowUnixSockets`,
 * listening unless `network.allowLocalBinding`), unless each command runs its own socat relay,
 * which needs both; then host sockets outside /run and /tmp stay reachable and commands may
 * listen (in their own network namespace), as docs/sandbox.md says.
 */
function seccompFilterFile(policy: SandboxPolicy, folder: string, relaysPerCommand: boolean): string | undefined {
  if (relaysPerCommand) return undefined;
  const filter = sandboxFilter({
    unixSockets: policy.allowUnixSockets.length === 0,
    listen: !policy.allowLocalBinding,
  });
  if (!filter) return undefined;
  const file = path.join(folder, "seccomp.bpf");
  writeFileSync(file, filter, { mode: 0o400 });
  return file;
}

function realOrSame(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The filtering proxy and, where nsenter can join it, the run's relay namespace. */
async function startNetwork(programs: SandboxPrograms, folder: string, allowedDomains: readonly string[]) {
  const proxy = await FilteringProxy.listen(path.join(folder, "proxy.sock"), allowedDomains);
  const { bwrap, socat, nsenter } = programs;
  const relay = socat && nsenter ? await RelayNamespace.start({ bwrap, socat, nsenter }, proxy.socketPath) : undefined;
  return { proxy, relay };
}

/**
 * Without nsenter, run inside the sandbox before the command: socat relays 127.0.0.1:3128 (where HTTP_PROXY
 * points) to the proxy's socket; the command starts once the port listens (seen in
 * /proc/net/tcp: 0100007F:0C38 is 127.0.0.1:3128, 0A is LISTEN), so its first request cannot
 * race the relay. The wait reads the table with shell builtins only: no process per check.
 */
function relayScript(socat: string): string {
  const address = `0100007F:${PROXY_PORT.toString(16).toUpperCase().padStart(4, "0")}`;
  return [
    `'${socat}' TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$GYRE_SANDBOX_PROXY_SOCKET" </dev/null >/dev/null 2>&1 &`,
    `listening() { while read -r _ a _ s _; do [ "$a" = ${address} ] && [ "$s" = 0A ] && return 0; done </proc/net/tcp; return 1; }`,
    "i=0; until listening || [ $i -ge 100000 ]; do i=$((i+1)); done",
    'exec "$0" "$@"',
  ].join("\n");
}
