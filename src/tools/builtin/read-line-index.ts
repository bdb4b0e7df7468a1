import type { ToolSession } from "../tool-session.js";

/** Lines between checkpoints: 10 M lines of a 1 GB log cost about 160 numbers. */
const DEFAULT_EVERY = 65_536;

/**
 * Where every `every`-th line of one version of a file starts, learnt while scanning it,
 * so paging through a huge file starts each Read near its window instead of at byte 0.
 * Checkpoint 0 is line 1 at byte 0 (a BOM is skipped by the reader).
 */
export class LineIndex {
  readonly every: number;
  readonly #offsets: number[] = [0];

  constructor(every = DEFAULT_EVERY) {
    this.every = every;
  }

  /** The latest known checkpoint at or before `line`. */
  nearest(line: number): { line: number; offset: number } {
    const k = Math.min(Math.floor((line - 1) / this.every), this.#offsets.length - 1);
    return { line: k * this.every + 1, offset: this.#offsets[k]! };
  }

  /** The next line number whose start is worth recording. */
  nextCheckpoint(): number {
    return this.#offsets.length * this.every + 1;
  }

  /** Record that `nextCheckpoint()` starts at byte `offset`. */
  record(offset: number): void {
    this.#offsets.push(offset);
  }
}

interface CachedIndex {
  mtimeMs: number;
  size: number;
  index: LineIndex;
}

const KEY = Symbol("gyre.builtin.read-line-index");

/** The session's index for this version of the file (a new one when mtime or size changed). */
export function lineIndexFor(
  session: ToolSession,
  realPath: string,
  version: { mtimeMs: number; size: number },
): LineIndex {
  const cache = session.get(KEY, () => new Map<string, CachedIndex>());
  const cached = cache.get(realPath);
  if (cached && cached.mtimeMs === version.mtimeMs && cached.size === version.size) return cached.index;
  const index = new LineIndex();
  cache.set(realPath, { mtimeMs: version.mtimeMs, size: version.size, index });
  return index;
}
