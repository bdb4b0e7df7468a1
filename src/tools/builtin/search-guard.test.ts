import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileGuard, FoundPath } from "../tool.js";
import { SearchGuard } from "./search-guard.js";

let root: string;
let ws: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-search-guard-")));
  ws = path.join(root, "ws");
  mkdirSync(path.join(ws, "sub"), { recursive: true });
  mkdirSync(path.join(root, "other"));
  writeFileSync(path.join(ws, "sub", "a.txt"), "");
  writeFileSync(path.join(root, "other", "a.txt"), "");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A FileGuard that denies names containing "secret" and records what it was asked. */
function guard(approvedPath?: string): FileGuard & { asked: Array<[string, FoundPath | undefined]> } {
  const asked: Array<[string, FoundPath | undefined]> = [];
  return {
    asked,
    ...(approvedPath !== undefined && { approvedPath }),
    mayRead: (file, found) => {
      asked.push([file, found]);
      return !file.includes("secret");
    },
  };
}

describe("SearchGuard", () => {
  it("reports everything when the call has no FileGuard (outside a run's pipeline)", () => {
    const search = new SearchGuard(undefined, ws);
    expect(search.mayReport(path.join(ws, "secret.txt"))).toBe(true);
    expect(search.mayEnter(path.join(ws, "secret"))).toBe(true);
  });

  it("asks mayRead for each file with its real path, and for a folder without its trailing slash", () => {
    const files = guard(ws);
    const search = new SearchGuard(files, ws);
    expect(search.mayReport(path.join(ws, "sub", "a.txt"))).toBe(true);
    expect(search.mayReport(path.join(ws, "sub", "secret.txt"))).toBe(false);
    expect(search.mayEnter(`${path.join(ws, "secret")}/`)).toBe(false);
    expect(files.asked).toEqual([
      [path.join(ws, "sub", "a.txt"), { real: path.join(ws, "sub", "a.txt"), isFile: true }],
      [path.join(ws, "sub", "secret.txt"), { real: path.join(ws, "sub", "secret.txt"), isFile: true }],
      [path.join(ws, "secret"), { real: path.join(ws, "secret") }],
    ]);
  });

  it("leaves out files whose real path is outside the approved folder: a root that now links elsewhere", () => {
    const door = path.join(root, "door");
    symlinkSync(path.join(root, "other"), door);
    const search = new SearchGuard(guard(ws), door);
    expect(search.mayReport(path.join(door, "a.txt"))).toBe(false);
    // Approved where it points: reported, judged by its real path.
    const files = guard(path.join(root, "other"));
    expect(new SearchGuard(files, door).mayReport(path.join(door, "a.txt"))).toBe(true);
    expect(files.asked).toEqual([
      [path.join(door, "a.txt"), { real: path.join(root, "other", "a.txt"), isFile: true }],
    ]);
  });

  it("resolves a file outside the root (a ../ Glob) through its folder, and drops one that is gone", () => {
    const search = new SearchGuard(guard(root), ws);
    expect(search.mayReport(path.join(root, "other", "a.txt"))).toBe(true);
    expect(search.mayReport(path.join(root, "gone", "a.txt"))).toBe(false);
    expect(new SearchGuard(guard(ws), path.join(root, "gone")).mayReport(path.join(root, "gone", "x"))).toBe(false);
  });
});
