import path from "node:path";
import picomatch from "picomatch";

/**
 * `/proc` entries that name a process: `<pid>`, `self`, `thread-self`. Through them a command
 * reads another process's environment (Gyre's and its parents' API keys), memory, command
 * line, open files, root and working folder. `/proc/cpuinfo` and the like name none.
 */
const PROCESS_ENTRY = /^(\d+|self|thread-self)$/;
const PROCESS_ENTRY_SAMPLES = ["1", "self", "thread-self"];

/**
 * Whether reading `file` (absolute) may read the state of a process: a path in `/proc/<pid>`,
 * `/proc/self` or `/proc/thread-self`, or `/proc` or `/` themselves (a recursive read of either
 * reaches every process's). With `glob`, whether any path the pattern can expand to is one.
 */
export function readsProcessState(file: string, glob = false): boolean {
  const segments = path.resolve(file).split("/").slice(1);
  const [first, second] = segments;
  if (first === undefined || first === "") return true;
  if (!(glob ? mayMatch(first, ["proc"]) : first === "proc")) return false;
  if (second === undefined) return true;
  return glob ? mayMatch(second, PROCESS_ENTRY_SAMPLES) : PROCESS_ENTRY.test(second);
}

function mayMatch(segment: string, names: readonly string[]): boolean {
  return segment.includes("**") || names.some((name) => picomatch.isMatch(name, segment, { dot: true }));
}
