import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { glob } from "tinyglobby";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CrawlOptions, crawlGlob } from "./glob-crawl.js";
import { globOptions, skippedFolders } from "./glob-run.js";

let root: string;

const FILES = [
  "root.ts",
  "root.js",
  "a.ts",
  "1.ts",
  "Upper.TS",
  "README.md",
  "Makefile",
  ".env",
  ".eslintrc.json",
  "src/index.ts",
  "src/Index.ts",
  "src/main.js",
  "src/index.test.ts",
  "src/util.d.ts",
  "src/.secret.ts",
  "src/LICENSE",
  "src/a/x.ts",
  "src/b/c/y.ts",
  "src/b/c/y.tsx",
  "src/deep/a/b/c.ts",
  "src/deep/a/b/.dot.ts",
  "src/node_modules/pkg/index.js",
  "src/node_modules/.bin/tool.js",
  "src/.git/config",
  "src/.git/objects/ab/cd",
  "node_modules/pkg/index.js",
  "node_modules/pkg/index.d.ts",
  "node_modules/pkg/node_modules/inner/x.js",
  "node_modules/.bin/cli.js",
  "node_modules/@scope/p/index.ts",
  ".git/HEAD",
  ".git/refs/heads/main",
  ".git/hooks/pre-commit.ts",
  ".hidden/secret.ts",
  ".hidden/node_modules/h.js",
  ".hidden/.git/x.ts",
  ".hidden/deep/y.ts",
  ".github/ci.yml",
  ".github/workflows/test.yml",
  "lib/.github/ci.yml",
  "lib/index.ts",
  "lib/a/index.ts",
  "lib/b/main.ts",
  // A file named like a skipped folder, and a worktree's `.git` file.
  "lib/node_modules",
  "sub/.git",
  "sub/x.ts",
  "names/with space/file one.ts",
  "names/[brackets]/b.ts",
  "names/(parens)/p.ts",
  "names/{braces}/x.ts",
  "names/ünï/cödé.ts",
  "names/star*name.ts",
];

const EMPTY_FOLDERS = ["empty", "src/empty", "node_modules/empty", ".hidden/empty"];

/** [link, target] pairs: to files and folders, a loop, and a dangling one. */
const SYMLINKS = [
  ["link-file.ts", "root.ts"],
  ["link-dir", "src"],
  ["src/link-up", ".."],
  ["lib/link-lib.ts", "index.ts"],
  ["broken.ts", "missing.ts"],
];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gyre-glob-crawl-"));
  for (const path of FILES) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), path);
  }
  for (const path of EMPTY_FOLDERS) mkdirSync(join(root, path), { recursive: true });
  for (const [link, target] of SYMLINKS) symlinkSync(target as string, join(root, link as string));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Patterns the fast crawl must answer itself, exactly as tinyglobby does. */
const FAST_PATTERNS = [
  "**",
  "*",
  "**/*",
  "**/*.ts",
  "**/*.TS",
  "*.{ts,js}",
  "**/*.{ts,tsx}",
  "src/**/*.{ts,tsx}",
  "{src,lib}/**",
  "{src,lib}/*/index.ts",
  "src/{a,b/c}/*.ts",
  "**/*.+(ts|js)",
  "**/!(*.test).ts",
  "**/@(index|main).*",
  "**/[a-c]*.ts",
  "**/[!a-c]*.ts",
  "**/[[:upper:]]*",
  "**/?.ts",
  "src/*/*/*.ts",
  "src/**/b/**",
  "**/{a,b}/**",
  "**/deep/**/c.ts",
  ".*",
  "**/.*",
  "**/.*.ts",
  ".hidden/**",
  ".hidden/**/*",
  ".hidden/node_modules/*",
  "**/.hidden/*",
  "**/.github/*.yml",
  ".github/**",
  "node_modules/**",
  "node_modules/**/*.js",
  "**/node_modules/**",
  "**/node_modules",
  "src/node_modules/**/*.js",
  ".git/**",
  "**/.git/*",
  "**/.git",
  ".git/HEAD",
  "src/index.ts",
  "src/deep/a/b/c.ts",
  "src/missing.ts",
  "src/",
  "src/*/",
  "src/**/",
  "src/index.ts/",
  "./src/*.ts",
  "src//*.ts",
  "src/./a/*.ts",
  "src/a/../b/**",
  "link-dir/**",
  "link-dir/*",
  "link-dir/a/*",
  "src/link-up/*",
  "**/link-*",
  "*link*",
  "broken.ts",
  "names/**",
  "names/with space/*",
  "names/[[]brackets]/*",
  "names/ünï/*.ts",
  "names/*/*",
  "empty/**",
  "**/*.rs",
  "missing/**",
  "nothing-*",
  // picomatch turns a stray `|` into an alternation over the whole pattern.
  "*|README.md",
  "**/*.js|*.md",
  "src/*|*.json",
  "*|y/*.md",
  "*.md|src/*.ts",
  "**/x|.env",
  "@(a|b",
  "*.(ts|js",
  "{src,lib",
  "[ab",
];

/** Patterns left to tinyglobby: escapes, negations, `..` and absolute paths. */
const FALLBACK_PATTERNS = ["names/\\[brackets\\]/*", "!*.ts", "../*", "src/../../*", "/etc/*", "."];

async function tinyglobby(pattern: string, signal?: AbortSignal): Promise<string[]> {
  return (await glob(pattern, { cwd: root, ...globOptions(pattern), signal })).sort();
}

/** The fast crawl's paths for `pattern`, sorted; fails if it would leave the pattern to tinyglobby. */
async function crawled(pattern: string, options?: CrawlOptions, skipped = skippedFolders(pattern)) {
  const crawl = crawlGlob(pattern, root, skipped, options);
  expect(crawl).toBeDefined();
  return (await crawl)?.paths.sort();
}

describe("crawlGlob", () => {
  it.each(FAST_PATTERNS)("finds what tinyglobby finds for %j", async (pattern) => {
    const expected = await tinyglobby(pattern);
    // Both phases of the walk: all synchronous, and all asynchronous.
    expect(await crawled(pattern, { syncBudgetMs: Infinity })).toEqual(expected);
    expect(await crawled(pattern, { syncBudgetMs: 0 })).toEqual(expected);
  });

  it.each(FALLBACK_PATTERNS)("leaves %j to tinyglobby", (pattern) => {
    expect(crawlGlob(pattern, root, skippedFolders(pattern))).toBeUndefined();
  });

  it("covers matches and non-matches of every kind", async () => {
    // Guards the fixture: the comparisons above must not all be between empty lists.
    const all = await crawled("**");
    expect(all).toContain("names/ünï/cödé.ts");
    expect(all).not.toContain("link-file.ts");
    expect(all).not.toContain("node_modules/pkg/index.js");
    expect(all).not.toContain(".hidden/secret.ts");
    expect(await crawled(".hidden/**", {}, [])).toContain(".hidden/node_modules/h.js");
  });

  it.each([Infinity, 0])("reads each match's modification time when asked (budget %s ms)", async (syncBudgetMs) => {
    const result = await crawlGlob("src/**", root, [], { modifiedTimes: true, syncBudgetMs });
    expect(result?.paths.length).toBeGreaterThan(5);
    expect(result?.times).toEqual(result?.paths.map((path) => statSync(join(root, path)).mtimeMs));
    expect((await crawlGlob("src/**", root, [], { syncBudgetMs }))?.times).toEqual([]);
  });

  it.each([Infinity, 0])(
    "returns nothing on an aborted signal, as tinyglobby does (budget %s ms)",
    async (syncBudgetMs) => {
      const controller = new AbortController();
      controller.abort();
      expect(await crawled("**", { signal: controller.signal, syncBudgetMs })).toEqual([]);
      expect(await tinyglobby("**", controller.signal)).toEqual([]);
    },
  );

  it.each([Infinity, 0])(
    "stops mid-walk once the signal aborts, keeping what it found (budget %s ms)",
    async (syncBudgetMs) => {
      // A signal that reads as aborted from its second check on: the walk checks it once per
      // folder, so only the top folder gets read.
      let checks = 0;
      const signal = {
        get aborted() {
          return ++checks > 1;
        },
      } as AbortSignal;
      expect(await crawled("**", { signal, syncBudgetMs })).toEqual(await tinyglobby("*"));
    },
  );
});
