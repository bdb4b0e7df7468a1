/** What the filter refuses besides io_uring and other ABIs. */
export interface FilterRules {
  /**
   * `socket(AF_UNIX, …)`: a host unix socket outside /run and /tmp (Docker Desktop's
   * ~/.docker/run/docker.sock, an agent socket in the home folder) stays on the read-only system,
   * and connecting needs no write access, only a socket. Off with `network.allowUnixSockets`:
   * seccomp sees `connect`'s address only as a pointer into the caller's memory, which it cannot
   * read, so it cannot tell an allowed socket path from another; the mounts alone hold then.
   */
  unixSockets: boolean;
  /** `listen(2)`: no server in the sandbox unless `network.allowLocalBinding`. */
  listen: boolean;
}

/**
 * A seccomp filter (classic BPF, as bubblewrap's `--seccomp FD` reads it) whose refusals fail
 * with EPERM. `socketpair` stays allowed (pipes between a program's own processes); abstract
 * sockets are per network namespace anyway. io_uring is refused (it can open, connect and
 * listen past seccomp), and every system call of another ABI (x32, 32-bit), where the numbers
 * differ, kills the process. Undefined on an architecture it does not know.
 */
export function sandboxFilter(rules: FilterRules, arch: string = process.arch): Buffer | undefined {
  const abi = ABIS[arch];
  if (!abi) return undefined;
  const program: Instruction[] = [
    [LD_ABS, 0, 0, ARCH_OFFSET],
    [JEQ, "next", "kill", abi.audit],
    [LD_ABS, 0, 0, NR_OFFSET],
    [JGE, "kill", "next", X32_BIT],
    ...(rules.unixSockets ? [[JEQ, "family", "next", abi.socket] as Instruction] : []),
    ...(rules.listen ? [[JEQ, "refuse", "next", abi.listen] as Instruction] : []),
    [JEQ, "refuse", "next", IO_URING_SETUP],
    [RET, 0, 0, ALLOW],
    ["family", LD_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
    [JEQ, "refuse", "allow", AF_UNIX],
    ["refuse", RET, 0, 0, ERRNO_EPERM],
    ["allow", RET, 0, 0, ALLOW],
    ["kill", RET, 0, 0, KILL_PROCESS],
  ];
  return assemble(program);
}

type Target = number | "next" | string;
/** `[code, jump if true, jump if false, k]`, optionally preceded by its label; jumps name labels. */
type Instruction = [number, Target, Target, number] | [string, number, Target, Target, number];

function assemble(program: Instruction[]): Buffer {
  const plain = program.map((entry) => (typeof entry[0] === "string" ? entry.slice(1) : entry)) as Array<
    [number, Target, Target, number]
  >;
  const labels = new Map<string, number>();
  program.forEach((entry, index) => typeof entry[0] === "string" && labels.set(entry[0], index));
  const offset = (target: Target, index: number): number => {
    if (typeof target === "number") return target;
    if (target === "next") return 0;
    const at = labels.get(target);
    if (at === undefined || at <= index) throw new Error(`seccomp: no label ${target} after ${index}`);
    return at - index - 1;
  };
  const buffer = Buffer.alloc(plain.length * 8);
  plain.forEach(([code, jt, jf, k], index) => {
    buffer.writeUInt16LE(code, index * 8);
    buffer.writeUInt8(offset(jt, index), index * 8 + 2);
    buffer.writeUInt8(offset(jf, index), index * 8 + 3);
    buffer.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return buffer;
}

/** AUDIT_ARCH_* and the socket(2) and listen(2) numbers, per Node architecture (both little-endian). */
const ABIS: Record<string, { audit: number; socket: number; listen: number }> = {
  x64: { audit: 0xc000003e, socket: 41, listen: 50 },
  arm64: { audit: 0xc00000b7, socket: 198, listen: 201 },
};
const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET = 0x06; // BPF_RET | BPF_K
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** The low half of args[0] (little-endian). */
const FIRST_ARGUMENT_OFFSET = 16;
const X32_BIT = 0x40000000;
const IO_URING_SETUP = 425;
const AF_UNIX = 1;
const ALLOW = 0x7fff0000;
const KILL_PROCESS = 0x80000000;
const ERRNO_EPERM = 0x00050000 | 1;
