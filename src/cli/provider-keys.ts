import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { providerKeyEnvNames } from "../model/index.js";

/**
 * The provider API keys this process started with, taken out of its environment by
 * {@link takeProviderKeys}. Only the CLI holds them: its runs get them through their `env`
 * option, and nothing it starts inherits them.
 */
const held: Record<string, string> = {};

/**
 * Moves the provider API keys (each built-in provider's `apiKeyEnv` by default; `gyre serve`
 * adds its config's providers' once it has read it) out of the process's
 * environment, before anything runs: out of `process.env`, so that no command, hook, MCP
 * server or `git` Gyre starts inherits them, and out of the environment block the kernel
 * shows as `/proc/<pid>/environ`, which any process of the same user can read (deleting a
 * variable does not change that block: it is overwritten in place through `/proc/self/mem`).
 */
export function takeProviderKeys(
  names: readonly string[] = providerKeyEnvNames(),
  env: NodeJS.ProcessEnv = process.env,
): void {
  const present = names.filter((name) => env[name]);
  if (present.length === 0) return;
  for (const name of present) {
    held[name] = env[name]!;
    delete env[name];
  }
  if (env === process.env) scrubEnvironmentBlock(present);
}

/** The environment a run resolves its model with: the process's, with the keys taken from it. */
export function providerEnvironment(): Record<string, string | undefined> {
  return { ...process.env, ...held };
}

/**
 * Overwrites the values of `names` in the environment block the process was started with
 * (Linux; elsewhere, or when the kernel refuses writes to `/proc/self/mem`, nothing changes).
 * The variables are gone from `process.env` already, so nothing points into those bytes.
 */
function scrubEnvironmentBlock(names: readonly string[]): void {
  if (process.platform !== "linux") return;
  let descriptor: number | undefined;
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    // Fields after the command name (which may hold spaces); env_start and env_end are fields 50 and 51.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!(start > 0 && end > start)) return;
    descriptor = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(descriptor, block, 0, block.length, start);
    let offset = 0;
    while (offset < block.length) {
      const stop = block.indexOf(0, offset);
      const entryEnd = stop < 0 ? block.length : stop;
      const entry = block.toString("latin1", offset, entryEnd);
      const equals = entry.indexOf("=");
      if (equals > 0 && names.includes(entry.slice(0, equals))) {
        const valueStart = offset + equals + 1;
        writeSync(descriptor, Buffer.alloc(entryEnd - valueStart), 0, entryEnd - valueStart, start + valueStart);
      }
      offset = entryEnd + 1;
    }
  } catch {
    // No /proc, or writes to it refused (hardened kernels): the keys stay in the block.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
