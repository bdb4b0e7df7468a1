import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * `parseArgs` of node:util, with an unknown option named and the closest known one offered
 * ("unknown option '--max-turn'; did you mean --max-turns?"). The error keeps node's `code`
 * (`ERR_PARSE_ARGS_UNKNOWN_OPTION`), so callers that treat parse errors as usage errors still do.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    const end = config.args?.indexOf("--") ?? -1;
    const args = config.args?.map((arg, index) =>
      end !== -1 && index > end ? arg : kebabSpelling(arg, config.options ?? {}),
    );
    return parseArgs(args ? { ...config, args } : config);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw error;
    const flag = /'(-[^']*)'/.exec((error as Error).message)?.[1];
    if (flag === undefined) throw error;
    throw Object.assign(new Error(unknownOptionMessage(flag, config.options ?? {}), { cause: error }), { code });
  }
}

/**
 * Claude Code's camelCase spelling of a known option (`--allowedTools`, `--disallowedTools`,
 * `--mcpConfig=…`) as Gyre's (`--allowed-tools`); every other argument as it is (and all after `--`).
 */
function kebabSpelling(arg: string, options: NonNullable<ParseArgsConfig["options"]>): string {
  const match = /^--([a-z]+[A-Z][A-Za-z]*)(=.*)?$/.exec(arg);
  if (!match?.[1]) return arg;
  const kebab = match[1].replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return kebab in options ? `--${kebab}${match[2] ?? ""}` : arg;
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
