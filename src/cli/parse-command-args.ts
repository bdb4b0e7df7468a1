import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * `parseArgs` of node:util, with an unknown option named and the closest known one offered
 * ("unknown option '--max-turn'; did you mean --max-turns?"). The error keeps node's `code`
 * (`ERR_PARSE_ARGS_UNKNOWN_OPTION`), so callers that treat parse errors as usage errors still do.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw error;
    const flag = /'(-[^']*)'/.exec((error as Error).message)?.[1];
    if (flag === undefined) throw error;
    throw Object.assign(new Error(unknownOptionMessage(flag, config.options ?? {}), { cause: error }), { code });
  }
}

/** "unknown option '--max-turn'; did you mean --max-turns?" (without the hint when nothing is close). */
export function unknownOptionMessage(flag: string, options: NonNullable<ParseArgsConfig["options"]>): string {
  const known = Object.entries(options).flatMap(([name, option]) => [
    `--${name}`,
    ...(option.short ? [`-${option.short}`] : []),
  ]);
  const suggestion = closest(flag.split("=")[0] ?? flag, known);
  return `unknown option '${flag}'${suggestion ? `; did you mean ${suggestion}?` : ""}`;
}

/** The candidate nearest to `word` by edit distance, if it is near enough to be what was meant. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  if (!best) return undefined;
  // A third of the name may be wrong (at least 2 edits for short names), or the word is a
  // prefix of the name (`--verb` for `--verbose`).
  const limit = Math.max(2, Math.floor(best.candidate.length / 3));
  if (best.distance <= limit) return best.candidate;
  const prefixed = candidates.filter((candidate) => word.length > 3 && candidate.startsWith(word));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions, each counting one. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
