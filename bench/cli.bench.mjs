// `gyre run` as a user meets it: wall time and peak memory of a 20-turn scripted coding
// session (real Bash, Read, Edit, Grep, Glob tools against the mock LLM), from process
// start to exit, and the time from process start to its first model request.
// Targets: under 0.35 s, under 120 MB, under 150 ms to the first request.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startMockLLM } from "../dist/testing/index.js";
import { codingScript, createProject } from "../scripts/coding-session.mjs";

const RUNS = 5;
const cli = resolve(process.env.GYRE_CLI ?? "dist/bin/gyre.js");
const hasTime = existsSync("/usr/bin/time");

// One project for every run, as a person works in one repository: its session database
// already exists after the warm-up run; the source files are reset before each run.
const project = mkdtempSync(join(tmpdir(), "gyre-bench-"));

async function once(server) {
  createProject(project);
  server.setScript(codingScript(project, 20));
  server.reset();
  const args = [
    cli,
    "run",
    "The tests fail. Fix the bug.",
    "--output-format",
    "json",
    "--cwd",
    project,
    "--permission-mode",
    "bypassPermissions",
    "--setting-sources",
    "",
  ];
  const command = hasTime ? "/usr/bin/time" : process.execPath;
  const commandArgs = hasTime ? ["-f", "GYRE_MAXRSS_KB=%M", process.execPath, ...args] : args;
  const started = Date.now();
  const startedHr = performance.now();
  const child = spawn(command, commandArgs, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: server.baseURL },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  const wallMs = performance.now() - startedHr;
  if (code !== 0) throw new Error(`gyre run failed (${code}): ${stderr}`);
  const result = JSON.parse(stdout);
  if (result.num_turns !== 20) throw new Error(`expected 20 turns, got ${result.num_turns}`);
  const firstRequestMs = Date.parse(server.requests[0].receivedAt) - started;
  const rssMb = Number(/GYRE_MAXRSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
  return { wallMs, firstRequestMs, rssMb };
}

const server = await startMockLLM({ script: { turns: [] } });
await once(server); // warm the disk cache
const runs = [];
for (let i = 0; i < RUNS; i++) runs.push(await once(server));
await server.close();
rmSync(project, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wall = median(runs.map((r) => r.wallMs));
const first = median(runs.map((r) => r.firstRequestMs));
const rss = median(runs.map((r) => r.rssMb));
// Baseline in the same run: bare Node starting and exiting.
const bareStart = performance.now();
spawnSync(process.execPath, ["-e", "0"]);
const bareMs = performance.now() - bareStart;
console.log(
  `gyre run, 20-turn coding session: ${(wall / 1000).toFixed(3)} s wall (target < 0.35 s), node -e 0: ${bareMs.toFixed(0)} ms`,
);
console.log(`  first model request after ${first.toFixed(0)} ms (target < 150 ms)`);
console.log(`  peak memory ${hasTime ? `${rss.toFixed(0)} MB` : "n/a (no /usr/bin/time)"} (target < 120 MB)`);
