import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

/** Packages of the module files `import(specifier)` loads, in a fresh process. */
async function loadedPackages(specifier: string): Promise<Set<string>> {
  const { stdout } = await run(process.execPath, ["scripts/loaded-modules.mjs", specifier]);
  const urls = JSON.parse(stdout) as string[];
  return new Set(urls.map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? "gyre"));
}

beforeAll(() => {
  if (!existsSync("dist/index.js")) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
});

describe('what import("gyre") loads', () => {
  // Each is loaded when its feature is first used: a PostgreSQL or SQLite store opened, a Bash
  // command judged, a model of that provider resolved, a Bash command run under a terminal, a
  // Glob or Grep call, an MCP server connected or created.
  const lazy = [
    "tinyglobby",
    "fdir",
    "pg",
    "better-sqlite3",
    "web-tree-sitter",
    "tree-sitter-bash",
    "@ai-sdk/anthropic",
    "@ai-sdk/openai",
    "@ai-sdk/openai-compatible",
    "@ai-sdk/provider-utils",
    "@lydell/node-pty",
    "@modelcontextprotocol/sdk",
  ];

  it("leaves out the packages only some runs need", async () => {
    const loaded = await loadedPackages("gyre");
    expect(loaded.has("gyre")).toBe(true);
    expect(lazy.filter((name) => loaded.has(name))).toEqual([]);
  });

  it("gyre/testing loads no more than zod besides itself", async () => {
    expect([...(await loadedPackages("gyre/testing"))].sort()).toEqual(["gyre", "zod"]);
  });
});
