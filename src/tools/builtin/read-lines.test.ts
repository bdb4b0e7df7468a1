import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LineIndex } from "./read-line-index.js";
import { type LineWindowOptions, lineWindowFromText, readLineWindow } from "./read-lines.js";

const dir = mkdtempSync(join(tmpdir(), "gyre-read-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Window = Pick<LineWindowOptions, "startLine" | "maxLines" | "maxLineChars" | "maxTotalChars">;

/**
 * The window computed the obvious way, on the whole text split on its line breaks as Claude
 * Code's Read does: a final line break is followed by an empty last line.
 */
function expected(content: string, window: Window) {
  const all = content === "" ? [] : content.split("\n");
  const lines: string[] = [];
  let chars = 0;
  let index = window.startLine - 1;
  for (; index < all.length && lines.length < window.maxLines; index++) {
    const line = all[index]!.replace(/\r$/, "").slice(0, window.maxLineChars);
    if (lines.length > 0 && chars + line.length > window.maxTotalChars) break;
    chars += line.length;
    lines.push(line);
  }
  return { lines, hasMore: index < all.length, totalLines: all.length };
}

async function actual(content: string, window: Window, bufferBytes: number, index?: LineIndex) {
  const path = join(dir, "f.txt");
  writeFileSync(path, content);
  const handle = await open(path, "r");
  try {
    const options = {
      ...window,
      encoding: "utf8" as const,
      skipBytes: 0,
      hashLimitBytes: 1 << 20,
      bufferBytes,
      index,
    };
    return await readLineWindow(handle, Buffer.byteLength(content), options);
  } finally {
    await handle.close();
  }
}

/** A small deterministic generator (mulberry32), so failures reproduce. */
function random(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

describe("readLineWindow", () => {
  it("matches splitting the whole text, whatever the buffer size", async () => {
    const next = random(7);
    const pieces = ["a", "bc", "\n", "\r\n", "\n\n", "long-line-piece", "é", "\r"];
    for (let round = 0; round < 150; round++) {
      let content = "";
      const length = next(20);
      for (let i = 0; i < length; i++) content += pieces[next(pieces.length)];
      // One index per content, shared by the reads, as the session shares it between calls.
      const index = new LineIndex(1 + next(3));
      for (const bufferBytes of [1, 2, 3, 7, 64, 5, 1]) {
        const window = {
          startLine: 1 + next(6),
          maxLines: 1 + next(6),
          maxLineChars: 1 + next(30),
          maxTotalChars: 1 + next(60),
        };
        const want = expected(content, window);
        const got = await actual(content, window, bufferBytes, bufferBytes === 64 ? undefined : index);
        const label = JSON.stringify({ content, window, bufferBytes, every: index.every });
        expect(got.lines, label).toEqual(want.lines);
        expect(got.hasMore, label).toBe(want.hasMore);
        if (got.totalLines !== undefined) expect(got.totalLines, label).toBe(want.totalLines);
      }
    }
  });

  it("counts lines, hashes and reports cut lines when it reaches the end", async () => {
    const got = await actual(
      "one\ntwo three four\nfive",
      {
        startLine: 2,
        maxLines: 10,
        maxLineChars: 5,
        maxTotalChars: 100,
      },
      4,
    );
    expect(got).toMatchObject({
      lines: ["two t", "five"],
      cutLines: [2],
      stop: "eof",
      hasMore: false,
      totalLines: 3,
    });
    expect(got.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps only the bytes it can show of a huge line", async () => {
    const got = await actual(
      `${"x".repeat(100_000)}\nnext\n`,
      {
        startLine: 1,
        maxLines: 2,
        maxLineChars: 10,
        maxTotalChars: 1000,
      },
      1024,
    );
    expect(got.lines).toEqual(["x".repeat(10), "next"]);
    expect(got.cutLines).toEqual([1]);
  });

  it("does not split a UTF-8 character when cutting a line", async () => {
    const got = await actual(
      `${"€".repeat(50)}\n`,
      {
        startLine: 1,
        maxLines: 1,
        maxLineChars: 3,
        maxTotalChars: 1000,
      },
      5,
    );
    expect(got.lines).toEqual(["€€€"]);
  });

  it("numbers the empty line after a final line break, as Claude Code does", async () => {
    const content = Array.from({ length: 26 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const window = { startLine: 1, maxLines: 100, maxLineChars: 100, maxTotalChars: 10_000 };
    const got = await actual(content, window, 64);
    expect(got.lines).toHaveLength(27);
    expect(got.lines.at(-1)).toBe("");
    expect(got).toMatchObject({ totalLines: 27, hasMore: false, stop: "eof" });
    // A window that ends on the final line break has the empty line still to come.
    expect(await actual(content, { ...window, maxLines: 26 }, 64)).toMatchObject({ hasMore: true });
    expect((await actual(content, { ...window, startLine: 27 }, 64)).lines).toEqual([""]);
    expect(await actual("", window, 64)).toMatchObject({ lines: [], totalLines: 0 });
  });

  it("windows text already in memory the same way", () => {
    const got = lineWindowFromText("a\r\nb\r\nc", {
      startLine: 2,
      maxLines: 1,
      maxLineChars: 10,
      maxTotalChars: 10,
    });
    expect(got).toMatchObject({ lines: ["b"], hasMore: true, stop: "limit" });
  });
});
