import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modifiedTimes, newestFirst } from "./glob-order.js";

const BASE = Date.parse("2026-01-01T00:00:00Z") / 1000;
let root: string;
/** Every file written, with its mtime in seconds: many share one, so ties are common. */
const files: { path: string; seconds: number }[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gyre-glob-order-"));
  mkdirSync(join(root, "d"));
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 300; i++) {
    const path = `${random() < 0.5 ? "d/" : ""}f${Math.floor(random() * 1e6)}-${i}.txt`;
    const seconds = BASE + Math.floor(random() * 40) * 60;
    writeFileSync(join(root, path), path);
    utimesSync(join(root, path), seconds, seconds);
    files.push({ path, seconds });
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The full sort the selection must agree with: newest first, ties by path. */
function fullSort(entries: { path: string; seconds: number }[]): string[] {
  return [...entries]
    .sort((a, b) => b.seconds - a.seconds || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((entry) => entry.path);
}

/** `newestFirst` by the files' times on disk. */
const byDisk = (paths: string[], dir: string, limit: number) => newestFirst(paths, modifiedTimes(paths, dir), limit);

describe("newestFirst", () => {
  it("returns the head of a full newest-first sort, ties by path, for any limit", () => {
    const paths = files.map((file) => file.path);
    const expected = fullSort(files);
    for (const limit of [0, 1, 2, 7, 100, 299, 300, 1000]) {
      expect(byDisk(paths, root, limit)).toEqual(expected.slice(0, limit));
    }
  });

  it("does not depend on the input order", () => {
    const reversed = files.map((file) => file.path).reverse();
    expect(byDisk(reversed, `${root}/`, 50)).toEqual(fullSort(files).slice(0, 50));
  });

  it("counts a path that no longer exists as oldest", () => {
    const paths = ["gone-b.txt", files[0]!.path, "gone-a.txt"];
    expect(byDisk(paths, root, 3)).toEqual([files[0]!.path, "gone-a.txt", "gone-b.txt"]);
  });

  it("handles no paths", () => {
    expect(byDisk([], root, 100)).toEqual([]);
  });
});
