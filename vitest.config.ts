import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * The unit tests beside the code that start no processes and touch no services: they share one
 * module graph per worker (`isolate: false`), since importing Gyre again for each file was most
 * of their time. `npm run test:unit` runs only these.
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

/** Files that need modules of their own: vi.mock replaces a module only before it is first imported. */
const ISOLATED = ["test/file-tools-race-fuzz.test.ts"];

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
        test: { name: "unit", include: ["src/**/*.test.ts"], exclude: UNIT_EXCLUDE, isolate: false },
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
