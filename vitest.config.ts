import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one on a 2-core CI machine, where most
    // test time is waiting on processes, sockets and timers, so two workers there cut the wall time by a third.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
