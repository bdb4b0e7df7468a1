/** What {@link takeBareResume} found: the arguments without a bare `-r`/`--resume`, and whether there was one. */
export interface BareResume {
  args: string[];
  /** The flag as typed (`-r` or `--resume`) when it came with no session id: a picker chooses the session. */
  bare: "-r" | "--resume" | undefined;
}

/**
 * `-r`/`--resume` with no session id after it (last, or followed by another option), as
 * `claude -r` takes it: the flag is taken out so the arguments parse, and the caller offers a
 * picker of the folder's recent sessions. A word after the flag is its session id, as before;
 * what follows `--` is left alone.
 */
export function takeBareResume(args: readonly string[]): BareResume {
  const end = args.indexOf("--");
  let bare: BareResume["bare"];
  const kept = args.filter((arg, index) => {
    if ((arg !== "-r" && arg !== "--resume") || (end !== -1 && index > end)) return true;
    const next = args[index + 1];
    if (next !== undefined && !next.startsWith("-")) return true;
    bare = arg;
    return false;
  });
  return { args: kept, bare };
}
