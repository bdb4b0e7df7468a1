/** One line of a diff. */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

/** What a diff shows, row by row: lines, a gap of unchanged lines left out, or how many rows are cut. */
export type DiffRow = DiffLine | { kind: "gap" } | { kind: "more"; count: number };

/**
 * Past this many cells (1,000 × 1,000 changed lines; docs/benchmarks.md has the time) the
 * longest common subsequence is not worth the wait: the middle shows as all removed, then all added.
 */
const MAX_TABLE_CELLS = 1_000_000;

/** The lines of `before` and `after` as removed, added and unchanged, in order (a longest common subsequence). */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Common head and tail first: an edit usually changes a few lines in the middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const same = (text: string): DiffLine => ({ kind: "same", text });
  return [...a.slice(0, head).map(same), ...diffMiddle(middleA, middleB), ...a.slice(a.length - tail).map(same)];
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_TABLE_CELLS) {
    return [
      ...a.map((text): DiffLine => ({ kind: "removed", text })),
      ...b.map((text): DiffLine => ({ kind: "added", text })),
    ];
  }
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i++] ?? "" });
      j++;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      lines.push({ kind: "removed", text: a[i++] ?? "" });
    } else lines.push({ kind: "added", text: b[j++] ?? "" });
  }
  while (i < a.length) lines.push({ kind: "removed", text: a[i++] ?? "" });
  while (j < b.length) lines.push({ kind: "added", text: b[j++] ?? "" });
  return lines;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  return text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
}

/**
 * The rows to show of a diff: changed lines with `context` unchanged lines around them (longer
 * unchanged runs become a gap), cut to `maxRows` with a last row saying how many more there are.
 */
export function diffRows(lines: readonly DiffLine[], options: { context: number; maxRows: number }): DiffRow[] {
  return capRows(contextRows(lines, options.context), options.maxRows);
}

/** Changed lines with `context` unchanged lines around them; longer unchanged runs become one gap. */
export function contextRows(lines: readonly DiffLine[], context: number): DiffRow[] {
  const changed = lines.map((line) => line.kind !== "same");
  const near = (index: number) => {
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++)
      if (changed[k]) return true;
    return false;
  };
  const rows: DiffRow[] = [];
  lines.forEach((line, index) => {
    if (line.kind !== "same" || near(index)) rows.push(line);
    else if (rows.at(-1)?.kind !== "gap" && rows.length > 0) rows.push({ kind: "gap" });
  });
  if (rows.at(-1)?.kind === "gap") rows.pop();
  return rows;
}

/** At most `maxRows` rows: past that, the last row says how many more there are. */
export function capRows(rows: readonly DiffRow[], maxRows: number): DiffRow[] {
  if (rows.length <= maxRows) return [...rows];
  const kept = rows.slice(0, Math.max(0, maxRows - 1));
  return [...kept, { kind: "more", count: rows.length - kept.length }];
}
