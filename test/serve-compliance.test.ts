import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { serve } from "../src/server/index.js";
import { type MockTurn, mockTurn, startMockLLM } from "../src/testing/index.js";
import { folderWithPeer } from "./compat-peers.js";

const run = promisify(execFile);

/** The vendored Open Responses compliance suite: beside the repository, else the shared copy. */
function suiteDir(): string {
  const candidates = [
    resolve(import.meta.dirname, "../../shared/openresponses-compliance"),
    "/work/shared/openresponses-compliance",
  ];
  const found = candidates.find((dir) => existsSync(join(dir, "run.sh")));
  if (!found)
    throw new Error(`The Open Responses compliance suite is missing: looked for run.sh in ${candidates.join(", ")}`);
  return found;
}

interface SuiteResult {
  id: string;
  status: string;
  errors?: string[];
}

// The first turn answers and calls get_weather: a request that offers that function gets the
// call back (tool-calling); for any other the call is to an unknown tool, refused inside the
// loop, and the next turn ends the response. Later turns serve continuations and summaries.
const turns: MockTurn[] = [
  mockTurn.of([
    { type: "text", text: "Hello there, friend." },
    { type: "tool_use", name: "get_weather", input: { location: "San Francisco, CA" } },
  ]),
  ...Array.from({ length: 8 }, () => mockTurn.text("OK.")),
];

it("passes the Open Responses compliance suite in full, WebSocket and compaction tests included", async () => {
  const dir = suiteDir();
  // The suite's work folder, where run.sh finds Bun and zod 3 (installed by `npm run compat:install`,
  // pinned by test/compat/openresponses-suite) instead of installing them itself.
  const work = folderWithPeer("openresponses-suite", "gyre-openresponses-suite-");
  const mock = await startMockLLM({ script: { turns } });
  const server = await serve({ port: 0, apiKeys: ["compliance-key-1"], env: mock.env() });
  try {
    const { stdout } = await run(
      "bash",
      [
        join(dir, "run.sh"),
        "-u",
        `${server.url}/v1`,
        "-k",
        "compliance-key-1",
        "-m",
        "anthropic/claude-sonnet-4-5",
        "--json",
      ],
      {
        env: { ...process.env, OPENRESPONSES_SUITE_CACHE: work },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      if (error.stdout?.trim().startsWith("{")) return { stdout: error.stdout };
      throw new Error(`run.sh failed: ${error.stderr ?? String(error)}`);
    });
    const report = JSON.parse(stdout) as { summary: Record<string, number>; results: SuiteResult[] };
    const failures = report.results.filter((result) => result.status !== "passed");
    expect(failures.map((result) => `${result.id}: ${(result.errors ?? []).join("; ")}`)).toEqual([]);
    expect(report.summary).toMatchObject({ passed: 17, failed: 0, skipped: 0, total: 17 });
  } finally {
    await server.close();
    await mock.close();
    rmSync(work, { recursive: true, force: true });
  }
}, 240_000);
