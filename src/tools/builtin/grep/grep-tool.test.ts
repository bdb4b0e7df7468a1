import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ToolContext, ToolSession } from "../../index.js";
import { findRipgrep } from "./find-ripgrep.js";
import { grepTool } from "./grep-tool.js";

/** Files of the fixture tree, oldest first (each gets a distinct mtime in this order). */
const FILES: Array<[string, string | Buffer]> = [
  [".git/HEAD", "needle in git\n"],
  [".gitignore", "ignored.txt\nbuild/\nnode_modules/\n"],
  ["ignored.txt", "needle ignored\n"],
  ["build/out.js", "needle built\n"],
  ["node_modules/pkg/index.js", "needle dependency\n"],
  [".hidden/secret.txt", "needle hidden\n"],
  [".env", "needle=env\n"],
  ["bin/data.bin", Buffer.from("needle\0\x01\x02binary\n")],
  ["crlf.txt", "alpha\r\nneedle crlf\r\nomega\r\n"],
  ["unicode.txt", "café NEEDLE ünïcödé\nnaïve\n"],
  ["docs/readme.md", "# Title\nA needle in docs.\n"],
  ["src/deep/nested/mod.py", "def needle():\n    return 1\n"],
  ["src/util.js", "export const a = 1;\nexport function needle() {}\n"],
  ["src/app.ts", "line 1\nline 2\nconst needle = 1;\nline 4\nline 5\nline 6\nline 7\nneedle again\nline 9\n"],
  ["multi.txt", "start\nmiddle part\nend\nstart again\n"],
];

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gyre-grep-"));
  const base = Date.parse("2026-01-01T00:00:00Z") / 1000;
  FILES.forEach(([path, content], index) => {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    utimesSync(full, base + index * 60, base + index * 60);
  });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function context(cwd = root, signal = new AbortController().signal): ToolContext {
  return {
    cwd,
    signal,
    sessionId: "s",
    toolUseId: "t",
    session: new ToolSession("s"),
    reportProgress() {},
    emit() {},
  };
}

const backends = findRipgrep() ? (["ripgrep", "js"] as const) : (["js"] as const);

async function grep(backend: "ripgrep" | "js", input: Record<string, unknown>, cwd = root): Promise<string> {
  const result = await grepTool({ backend }).execute(input as never, context(cwd));
  if (typeof result === "string") return result;
  return result.content as string;
}

describe.each(backends)("Grep with the %s backend", (backend) => {
  const run = (input: Record<string, unknown>, cwd?: string) => grep(backend, input, cwd);

  it("lists matching files newest first, skipping ignored, hidden, .git and binary files", async () => {
    expect(await run({ pattern: "needle" })).toBe(
      ["Found 5 files", "src/app.ts", "src/util.js", "src/deep/nested/mod.py", "docs/readme.md", "crlf.txt"].join("\n"),
    );
  });

  it("searches case-insensitively with -i, Unicode text included", async () => {
    expect(await run({ pattern: "needle", "-i": true, output_mode: "count" })).toBe(
      [
        "crlf.txt:1",
        "docs/readme.md:1",
        "src/app.ts:2",
        "src/deep/nested/mod.py:1",
        "src/util.js:1",
        "unicode.txt:1",
        "",
        "Found 7 total occurrences across 6 files.",
      ].join("\n"),
    );
    expect(await run({ pattern: "café", output_mode: "content" })).toBe("unicode.txt:1:café NEEDLE ünïcödé");
  });

  it("prints matching lines with line numbers, and without when -n is false", async () => {
    expect(await run({ pattern: "needle", output_mode: "content", path: "src" })).toBe(
      [
        "src/app.ts:3:const needle = 1;",
        "src/app.ts:8:needle again",
        "src/deep/nested/mod.py:1:def needle():",
        "src/util.js:2:export function needle() {}",
      ].join("\n"),
    );
    expect(await run({ pattern: "needle", output_mode: "content", path: "src/app.ts", "-n": false })).toBe(
      ["src/app.ts:const needle = 1;", "src/app.ts:needle again"].join("\n"),
    );
  });

  it("shows context lines with rg's separators", async () => {
    expect(await run({ pattern: "needle", output_mode: "content", path: "src/app.ts", "-C": 1 })).toBe(
      [
        "src/app.ts-2-line 2",
        "src/app.ts:3:const needle = 1;",
        "src/app.ts-4-line 4",
        "--",
        "src/app.ts-7-line 7",
        "src/app.ts:8:needle again",
        "src/app.ts-9-line 9",
      ].join("\n"),
    );
    expect(await run({ pattern: "needle", output_mode: "content", path: "src/app.ts", "-B": 2, "-A": 0 })).toBe(
      [
        "src/app.ts-1-line 1",
        "src/app.ts-2-line 2",
        "src/app.ts:3:const needle = 1;",
        "--",
        "src/app.ts-6-line 6",
        "src/app.ts-7-line 7",
        "src/app.ts:8:needle again",
      ].join("\n"),
    );
    expect(await run({ pattern: "needle", output_mode: "content", path: "src/app.ts", context: 3 })).toBe(
      [1, 2, 3, 4, 5, 6, 7, 8, 9]
        .map((n) =>
          n === 3
            ? "src/app.ts:3:const needle = 1;"
            : n === 8
              ? "src/app.ts:8:needle again"
              : `src/app.ts-${n}-line ${n}`,
        )
        .join("\n"),
    );
  });

  it("strips CRLF line ends and lets $ match before them", async () => {
    expect(await run({ pattern: "crlf$", output_mode: "content" })).toBe("crlf.txt:2:needle crlf");
  });

  it("filters by type and by glob", async () => {
    expect(await run({ pattern: "needle", type: "py" })).toBe("Found 1 file\nsrc/deep/nested/mod.py");
    expect(await run({ pattern: "needle", glob: "*.{ts,js}" })).toBe("Found 2 files\nsrc/app.ts\nsrc/util.js");
    expect(await run({ pattern: "needle", glob: "*.ts,*.md" })).toBe("Found 2 files\nsrc/app.ts\ndocs/readme.md");
    expect(await run({ pattern: "needle", glob: "!src/**" })).toBe("Found 2 files\ndocs/readme.md\ncrlf.txt");
    expect(await run({ pattern: "needle", glob: "*.log" })).toBe("No files found");
  });

  it("lets a glob whitelist an ignored or hidden file, as rg does", async () => {
    expect(await run({ pattern: "needle", glob: "ignored.txt" })).toBe("Found 1 file\nignored.txt");
  });

  it("searches an ignored folder or hidden file named as the path", async () => {
    expect(await run({ pattern: "needle", path: "node_modules" })).toBe("Found 1 file\nnode_modules/pkg/index.js");
    expect(await run({ pattern: "needle", path: ".env" })).toBe("Found 1 file\n.env");
  });

  it("matches across lines in multiline mode", async () => {
    expect(await run({ pattern: "start.middle", output_mode: "content" })).toBe("No matches found");
    expect(await run({ pattern: "start.middle", multiline: true, output_mode: "content" })).toBe(
      "multi.txt:1:start\nmulti.txt:2:middle part",
    );
    expect(await run({ pattern: "part\\nend", multiline: true, output_mode: "count" })).toBe(
      "multi.txt:1\n\nFound 1 total occurrence across 1 file.",
    );
  });

  it("translates common rg syntax", async () => {
    expect(await run({ pattern: "(?i)^CONST\\s+needle", output_mode: "content" })).toBe(
      "src/app.ts:3:const needle = 1;",
    );
    expect(await run({ pattern: "[[:digit:]];$", output_mode: "content", path: "src" })).toBe(
      "src/app.ts:3:const needle = 1;\nsrc/util.js:1:export const a = 1;",
    );
    expect(await run({ pattern: "\\Aneedle", output_mode: "content" })).toBe(
      "crlf.txt:2:needle crlf\nsrc/app.ts:8:needle again",
    );
    expect(await run({ pattern: "(?P<word>needle) again", output_mode: "content" })).toBe("src/app.ts:8:needle again");
  });

  it("pages output with head_limit and offset, and says so", async () => {
    expect(await run({ pattern: "needle", head_limit: 2 })).toBe(
      [
        "Found 5 files",
        "src/app.ts",
        "src/util.js",
        "",
        "[Showing files 1-2 of 5 (head_limit: 2, offset: 0). Use offset: 2 to see more.]",
      ].join("\n"),
    );
    expect(await run({ pattern: "needle", head_limit: 2, offset: 4 })).toBe(
      ["Found 5 files", "crlf.txt", "", "[Showing files 5-5 of 5 (head_limit: 2, offset: 4).]"].join("\n"),
    );
    expect(await run({ pattern: "line", output_mode: "content", head_limit: 1, offset: 1 })).toBe(
      "src/app.ts:2:line 2\n\n[Showing lines 2-2 of 7 (head_limit: 1, offset: 1). Use offset: 2 to see more.]",
    );
    expect(await run({ pattern: "needle", output_mode: "count", "-i": true, head_limit: 1 })).toBe(
      [
        "crlf.txt:1",
        "",
        "[Showing entries 1-1 of 6 (head_limit: 1, offset: 0). Use offset: 1 to see more.]",
        "",
        "Found 7 total occurrences across 6 files.",
      ].join("\n"),
    );
  });

  it("applies the default head_limit of 250 and 0 means unlimited", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-grep-many-"));
    try {
      writeFileSync(join(dir, "many.txt"), "hit\n".repeat(300));
      const limited = await run({ pattern: "hit", output_mode: "content" }, dir);
      expect(limited.split("\n")).toHaveLength(252);
      expect(limited).toContain("[Showing lines 1-250 of 300 (head_limit: 250, offset: 0). Use offset: 250");
      const all = await run({ pattern: "hit", output_mode: "content", head_limit: 0 }, dir);
      expect(all.split("\n")).toHaveLength(300);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports no matches in each mode", async () => {
    expect(await run({ pattern: "zzz_absent" })).toBe("No files found");
    expect(await run({ pattern: "zzz_absent", output_mode: "content" })).toBe("No matches found");
    expect(await run({ pattern: "zzz_absent", output_mode: "count" })).toBe("No matches found");
  });

  it("refuses a regex that does not compile, a missing path and an unknown type", async () => {
    await expect(run({ pattern: "(unclosed" })).rejects.toThrow(/Invalid regex pattern "\(unclosed"/);
    await expect(run({ pattern: "interface{}" })).rejects.toThrow(/Invalid regex pattern/);
    await expect(run({ pattern: "a(?=b)" })).rejects.toThrow(/look-around/);
    await expect(run({ pattern: "x", path: "nope/missing" })).rejects.toThrow(/Path does not exist: nope\/missing/);
    await expect(run({ pattern: "x", type: "klingon" })).rejects.toThrow(/Unknown file type "klingon"/);
  });

  it("prints absolute paths for a path outside the cwd", async () => {
    const cwd = join(root, "src");
    expect(await run({ pattern: "needle", path: join(root, "docs") }, cwd)).toBe(
      `Found 1 file\n${join(root, "docs", "readme.md")}`,
    );
    expect(await run({ pattern: "needle", path: "deep" }, cwd)).toBe("Found 1 file\ndeep/nested/mod.py");
  });

  it("stops when the call is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      grepTool({ backend }).execute({ pattern: "needle" }, context(root, controller.signal)),
    ).rejects.toThrow("stop");
  });
});

describe("Grep backends agree", () => {
  const inputs: Array<Record<string, unknown>> = [
    { pattern: "needle" },
    { pattern: "e", output_mode: "content", "-C": 2 },
    { pattern: "e", output_mode: "count" },
    { pattern: "NEEDLE|Title", "-i": true, output_mode: "content", "-n": false },
    { pattern: "\\w+\\.(md|txt)", output_mode: "content" },
    { pattern: "a.*\\n.*e", multiline: true, output_mode: "content" },
    { pattern: "o", multiline: true, output_mode: "count" },
    { pattern: "needle", glob: "**/nested/*" },
    { pattern: "needle", type: "js" },
    { pattern: "^$", output_mode: "count" },
  ];
  it.runIf(backends.length === 2).each(inputs)("on %o", async (input) => {
    expect(await grep("js", input)).toBe(await grep("ripgrep", input));
  });
});
