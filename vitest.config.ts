import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, sep } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The files beside the code whose tests start processes (Bash, hook commands, ripgrep,
 * pseudo-terminals, MCP servers, git) or read and write files of many megabytes: they run with
 * the integration tests. The rest of src/ is the "unit" project (`npm run test:unit`).
 */
export const UNIT_EXCLUDE = [
  "src/tools/builtin/bash/*.test.ts",
  "src/hooks/runner-commands.test.ts",
  "src/tools/builtin/grep/grep-tool.test.ts",
  "src/tools/builtin/read-lines.test.ts",
  "src/tools/builtin/read-large-file.test.ts",
  "src/mcp/run-servers.test.ts",
  "src/sandbox/gitlinks.test.ts",
  "src/tui/shell-escape.test.ts",
];

/**
 * Files that replace a module with `vi.mock`, found by reading them: a mock takes effect only
 * before the module is first imported, so these get a fresh module graph each ("isolated").
 */
const ISOLATED = ["src", "test"].flatMap((folder) =>
  readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => join(folder, file).split(sep).join("/"))
    .filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(file, "utf8"))),
);

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // One worker more than the cores (Vitest's default is one fewer): most test time is waiting on
    // processes, sockets and timers, so on a 2-core machine three workers keep both cores busy
    // (measured: 225 s against 264 s with two, with about 5% of the CPU idle). GYRE_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.GYRE_TEST_WORKERS || availableParallelism() + 1),
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["src/**/*.test.ts"], exclude: [...UNIT_EXCLUDE, ...ISOLATED], isolate: false },
      },
      // Files that start processes, servers, terminals or services share a module graph per
      // worker too: importing Gyre again for each file was a quarter of the suite's CPU time.
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts", ...UNIT_EXCLUDE],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      // Files that replace a module (vi.mock), which only a fresh module graph can honour.
      { extends: true, test: { name: "isolated", include: ISOLATED } },
    ],
  },
});
