import { statSync } from "node:fs";

const STAT_OPTIONS = { throwIfNoEntry: false } as const;

/**
 * The `mtimeMs` of the file at `path`; 0 (oldest) for one that is gone or cannot be read.
 * Synchronous: a callback or promise stat costs the main thread more (a thread-pool round
 * trip and a callback) than the stat itself.
 */
export function modifiedTime(path: string): number {
  try {
    return statSync(path, STAT_OPTIONS)?.mtimeMs ?? 0;
  } catch {
    return 0;
  }
}

/** `modifiedTime` of each of `paths` (relative to the directory `root`). */
export function modifiedTimes(paths: readonly string[], root: string): Float64Array {
  const base = root.endsWith("/") ? root : `${root}/`;
  const times = new Float64Array(paths.length);
  for (let i = 0; i < paths.length; i++) times[i] = modifiedTime(base + paths[i]);
  return times;
}

/**
 * The first `limit` of `paths` in newest-modified-first order by `times` (one per path),
 * ties by path (code unit order). The result is exactly the head of a full sort, but only
 * the top `limit` are ever sorted: the rest are turned away by one comparison against the
 * worst kept entry.
 */
export function newestFirst(paths: readonly string[], times: ArrayLike<number>, limit: number): string[] {
  const count = paths.length;
  /** Whether entry `a` comes before entry `b` in the output. */
  const before = (a: number, b: number): boolean => {
    const ta = times[a] as number;
    const tb = times[b] as number;
    if (ta !== tb) return ta > tb;
    return (paths[a] as string) < (paths[b] as string);
  };
  const kept = topIndices(count, Math.max(0, Math.min(limit, count)), before);
  kept.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  return kept.map((index) => paths[index] as string);
}

/**
 * Indices of the `size` entries (of `0..count-1`) that come first under `before`, unordered.
 * A heap keeps the kept entries with the one that comes last on top, so each further entry
 * needs a single comparison unless it displaces that one.
 */
function topIndices(count: number, size: number, before: (a: number, b: number) => boolean): number[] {
  const heap: number[] = [];
  for (let i = 0; i < size; i++) heap.push(i);
  if (size === 0 || size === count) return heap;
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(heap, i, before);
  for (let i = size; i < count; i++) {
    if (before(i, heap[0] as number)) {
      heap[0] = i;
      siftDown(heap, 0, before);
    }
  }
  return heap;
}

/** Restore the heap below `start`: every parent comes after (is worse than) its children. */
function siftDown(heap: number[], start: number, before: (a: number, b: number) => boolean): void {
  const size = heap.length;
  let parent = start;
  for (;;) {
    const left = 2 * parent + 1;
    if (left >= size) return;
    const right = left + 1;
    let worst = left;
    if (right < size && before(heap[left] as number, heap[right] as number)) worst = right;
    if (!before(heap[parent] as number, heap[worst] as number)) return;
    const swap = heap[parent] as number;
    heap[parent] = heap[worst] as number;
    heap[worst] = swap;
    parent = worst;
  }
}
