import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareCall, type ToolContext, ToolRegistry, ToolSession, toJsonSchema } from "../index.js";
import { globTool } from "./glob-tool.js";

const BASE = Date.parse("2026-01-01T00:00:00Z") / 1000;
let root: string;

/** Write `path` under `dir` with an mtime `minutes` after BASE. */
function write(dir: string, path: string, minutes: number): void {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, path);
  utimesSync(full, BASE + minutes * 60, BASE + minutes * 60);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gyre-glob-"));
  write(root, "src/old.ts", 1);
  write(root, "src/new.ts", 9);
  write(root, "src/mid.ts", 5);
  write(root, "src/deep/inner.ts", 7);
  write(root, "src/readme.md", 3);
  write(root, "root.ts", 2);
  write(root, "node_modules/pkg/index.ts", 8);
  write(root, ".hidden/secret.ts", 8);
  write(root, ".git/hooks/x.ts", 8);
  write(root, "ünï/cödé.ts", 4);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function context(cwd = root): ToolContext {
  return {
    cwd,
    signal: new AbortController().signal,
    sessionId: "s",
    toolUseId: "t",
    session: new ToolSession("s"),
    reportProgress() {},
    emit() {},
  };
}

async function glob(input: { pattern: string; path?: string }, cwd = root, maxResults?: number): Promise<string> {
  const result = await globTool({ maxResults }).execute(input, context(cwd));
  return typeof result === "string" ? result : (result.content as string);
}

describe("Glob", () => {
  it("lists matches newest-modified first, relative to the cwd", async () => {
    expect(await glob({ pattern: "**/*.ts" })).toBe(
      ["src/new.ts", "src/deep/inner.ts", "src/mid.ts", "ünï/cödé.ts", "root.ts", "src/old.ts"].join("\n"),
    );
  });

  it("skips node_modules, hidden folders and .git unless the pattern names them", async () => {
    expect(await glob({ pattern: "node_modules/**/*.ts" })).toBe("node_modules/pkg/index.ts");
    expect(await glob({ pattern: ".hidden/*.ts" })).toBe(".hidden/secret.ts");
    expect(await glob({ pattern: "**/index.ts" })).toBe("No files found");
  });

  it("searches under path, relative or absolute, and prints paths relative to the cwd", async () => {
    expect(await glob({ pattern: "*.ts", path: "src" })).toBe("src/new.ts\nsrc/mid.ts\nsrc/old.ts");
    expect(await glob({ pattern: "**/*.md", path: join(root, "src") })).toBe("src/readme.md");
    expect(await glob({ pattern: "*.ts", path: "deep" }, join(root, "src"))).toBe("deep/inner.ts");
  });

  it("prints absolute paths for a folder outside the cwd", async () => {
    expect(await glob({ pattern: "*.md", path: join(root, "src") }, join(root, "ünï"))).toBe(
      join(root, "src", "readme.md"),
    );
  });

  it("accepts an absolute pattern under the path", async () => {
    expect(await glob({ pattern: join(root, "src", "*.md") })).toBe("src/readme.md");
  });

  it("orders the same when tinyglobby runs a pattern the fast crawl leaves to it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-glob-escaped-"));
    try {
      write(dir, "a[1].txt", 1);
      write(dir, "b[1].txt", 3);
      write(dir, "c[1].txt", 2);
      // Escaped brackets are left to tinyglobby.
      expect(await glob({ pattern: "*\\[1\\].txt" }, dir)).toBe("b[1].txt\nc[1].txt\na[1].txt");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says No files found when nothing matches", async () => {
    expect(await glob({ pattern: "**/*.rs" })).toBe("No files found");
  });

  it("refuses a path that does not exist or is a file", async () => {
    await expect(glob({ pattern: "*", path: "missing" })).rejects.toThrow(/Path does not exist: missing/);
    await expect(glob({ pattern: "*", path: "root.ts" })).rejects.toThrow(/not a directory/);
  });

  it("caps results and says how many more matched", async () => {
    expect(await glob({ pattern: "**/*.ts" }, root, 2)).toBe(
      "src/new.ts\nsrc/deep/inner.ts\n(Showing 2 of 6 matching files; 4 more are not listed. Narrow the pattern or path to see the rest.)",
    );
  });

  it("lists at most 100 paths by default", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-glob-many-"));
    try {
      for (let i = 0; i < 130; i++) write(dir, `f${String(i).padStart(3, "0")}.txt`, i);
      const output = await glob({ pattern: "*.txt" }, dir);
      const lines = output.split("\n");
      expect(lines).toHaveLength(101);
      expect(lines[0]).toBe("f129.txt");
      expect(lines[99]).toBe("f030.txt");
      expect(lines[100]).toBe(
        "(Showing 100 of 130 matching files; 30 more are not listed. Narrow the pattern or path to see the rest.)",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("returns structured data for callers", async () => {
    const result = await globTool().execute({ pattern: "src/*.md" }, context());
    expect(typeof result === "string" ? undefined : result.data).toEqual({
      filenames: ["src/readme.md"],
      numFiles: 1,
      truncated: false,
    });
  });
});

describe("Glob schema", () => {
  const registry = new ToolRegistry([globTool()]);
  const prepare = (input: unknown) => prepareCall(registry, { id: "1", name: "Glob", input });

  it("is pinned", () => {
    expect(toJsonSchema(globTool().inputSchema)).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "path": {
            "description": "The directory to search in, absolute or relative to the working directory. Omit it to search the working directory.",
            "type": "string",
          },
          "pattern": {
            "description": "The glob pattern to match files against, e.g. "**/*.ts" or "src/**/*.{js,jsx}"",
            "minLength": 1,
            "type": "string",
          },
        },
        "required": [
          "pattern",
        ],
        "type": "object",
      }
    `);
  });

  it("accepts valid input and refuses invalid input", () => {
    expect(prepare({ pattern: "**/*.ts" }).ok).toBe(true);
    expect(prepare({ pattern: "*.ts", path: "src" }).ok).toBe(true);
    expect(prepare({ path: "src" }).ok).toBe(false);
    expect(prepare({ pattern: "" }).ok).toBe(false);
    expect(prepare({ pattern: "*.ts", include: "x" }).ok).toBe(false);
  });
});
