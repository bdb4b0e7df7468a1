/**
 * A seccomp filter (classic BPF, as bubblewrap's `--seccomp FD` reads it) that makes
 * `socket(AF_UNIX, …)` fail with EPERM: a host unix socket outside /run and /tmp (Docker
 * Desktop's ~/.docker/run/docker.sock, an agent socket in the home folder) stays on the
 * read-only system, and connecting needs no write access, only a socket. `socketpair` stays
 * allowed (pipes between a program's own processes); abstract sockets are per network
 * namespace anyway. io_uring is refused too (it can open and connect sockets past seccomp),
 * and so is every system call of another ABI (x32, 32-bit), where the numbers differ.
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const abi = ABIS[arch];
  if (!abi) return undefined;
  const program: Array<[number, number, number, number]> = [
    [LD_ABS, 0, 0, ARCH_OFFSET],
    [JEQ, 1, 0, abi.audit],
    [RET, 0, 0, KILL_PROCESS],
    [LD_ABS, 0, 0, NR_OFFSET],
    [JGE, 7, 0, X32_BIT], // → kill
    [JEQ, 2, 0, abi.socket], // → family check
    [JEQ, 3, 0, IO_URING_SETUP], // → EPERM
    [RET, 0, 0, ALLOW],
    [LD_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
    [JEQ, 0, 1, AF_UNIX],
    [RET, 0, 0, ERRNO_EPERM],
    [RET, 0, 0, ALLOW],
    [RET, 0, 0, KILL_PROCESS],
  ];
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    buffer.writeUInt16LE(code, index * 8);
    buffer.writeUInt8(jt, index * 8 + 2);
    buffer.writeUInt8(jf, index * 8 + 3);
    buffer.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return buffer;
}

/** AUDIT_ARCH_* and the socket(2) number, per Node architecture (both little-endian). */
const ABIS: Record<string, { audit: number; socket: number }> = {
  x64: { audit: 0xc000003e, socket: 41 },
  arm64: { audit: 0xc00000b7, socket: 198 },
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
