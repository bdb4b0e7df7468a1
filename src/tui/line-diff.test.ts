import { describe, expect, it } from "vitest";
import { capRows, diffLines, diffRows } from "./line-diff.js";

describe("diffLines", () => {
  it("keeps common lines and marks removed and added ones, in order", () => {
    expect(diffLines("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "B" },
      { kind: "same", text: "c" },
      { kind: "same", text: "d" },
      { kind: "added", text: "e" },
    ]);
  });

  it("finds a moved-in line among unchanged ones (a longest common subsequence)", () => {
    expect(diffLines("x\ny\nz", "x\nnew\ny\nz").map((line) => line.kind)).toEqual(["same", "added", "same", "same"]);
  });

  it("makes a new file all added and an emptied one all removed", () => {
    expect(diffLines("", "1\n2")).toEqual([
      { kind: "added", text: "1" },
      { kind: "added", text: "2" },
    ]);
    expect(diffLines("1\r\n", "")).toEqual([{ kind: "removed", text: "1" }]);
  });
});

describe("diffRows", () => {
  const lines = diffLines(
    Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n"),
    Array.from({ length: 20 }, (_, i) => (i === 2 || i === 15 ? `changed ${i}` : `line ${i}`)).join("\n"),
  );

  it("shows changes with a few lines of context and one gap for a long unchanged run", () => {
    const rows = diffRows(lines, { context: 1, maxRows: 100 });
    expect(rows).toEqual([
      { kind: "same", text: "line 1" },
      { kind: "removed", text: "line 2" },
      { kind: "added", text: "changed 2" },
      { kind: "same", text: "line 3" },
      { kind: "gap" },
      { kind: "same", text: "line 14" },
      { kind: "removed", text: "line 15" },
      { kind: "added", text: "changed 15" },
      { kind: "same", text: "line 16" },
    ]);
  });

  it("caps the height with a last row counting what is left out", () => {
    const rows = diffRows(lines, { context: 1, maxRows: 4 });
    expect(rows).toHaveLength(4);
    expect(rows.at(-1)).toEqual({ kind: "more", count: 6 });
    expect(capRows(rows.slice(0, 3), 3)).toHaveLength(3);
  });
});
