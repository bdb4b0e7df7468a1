// `gyre run` as a user meets it: wall time and peak memory of a 20-turn scripted coding
// session (real Bash, Read, Edit, Grep, Glob tools against the mock LLM), from process
// start to exit, and the time from process start to its first model request.
// Targets: under 0.35 s, under 120 MB, the first request within 2x the wall of `node -e 0` (issue 30).
// Baselines from the same run bound them: `node -e 0` in the same environment (the floor
// of the first request), and that plus the script's Bash commands run directly (the floor
// of the wall time). The first run starts with an empty code cache and is reported apart.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startMockLLM } from "../dist/testing/index.js";
import { codingScript, createProject } from "../scripts/coding-session.mjs";

const RUNS = 5;
const TURNS = 20;
const cli = resolve(process.env.GYRE_CLI ?? "dist/bin/gyre.js");
const hasTime = existsSync("/usr/bin/time");

// One project for every run, as a person works in one repository: its session database
// already exists after the first run; the source files are reset before each run.
const project = mkdtempSync(join(tmpdir(), "gyre-bench-"));
// A code cache of the bench's own, so the first run really starts without one.
const codeCache = mkdtempSync(join(tmpdir(), "gyre-bench-code-cache-"));

async function once(server, baseEnv) {
  createProject(project);
  server.setScript(codingScript(project, TURNS));
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
  const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"], env: cliEnv(server, baseEnv) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  const wallMs = performance.now() - startedHr;
  if (code !== 0) throw new Error(`gyre run failed (${code}): ${stderr}`);
  const result = JSON.parse(stdout);
  if (result.num_turns !== TURNS) throw new Error(`expected ${TURNS} turns, got ${result.num_turns}`);
  const firstRequestMs = Date.parse(server.requests[0].receivedAt) - started;
  const rssMb = Number(/GYRE_MAXRSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
  return { wallMs, firstRequestMs, rssMb };
}

function cliEnv(server, baseEnv) {
  return {
    ...baseEnv,
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: server.baseURL,
    NODE_COMPILE_CACHE: codeCache,
    // Sessions stay in the scratch project (as before the user-wide default), not in ~/.gyre.
    GYRE_HOME: join(project, ".gyre"),
  };
}

/** `node -e 0` in the CLI's environment (NODE_EXTRA_CA_CERTS, for one, costs start-up time). */
function bareNode(env) {
  const started = performance.now();
  spawnSync(process.execPath, ["-e", "0"], { env });
  return performance.now() - started;
}

/** The script's Bash commands run one after another as the Bash tool runs them, in the project. */
function bashCommands(env) {
  const commands = codingScript(project, TURNS)
    .turns.flatMap((turn) => turn.content)
    .filter((block) => block.type === "tool_use" && block.name === "Bash")
    .map((block) => block.input.command);
  createProject(project);
  const started = performance.now();
  for (const command of commands) spawnSync("/bin/bash", ["-c", `exec 2>&1; ${command}`], { cwd: project, env });
  return { ms: performance.now() - started, count: commands.length };
}

/** Every number for one environment of the CLI, printed under `label`. */
async function measure(label, baseEnv) {
  rmSync(codeCache, { recursive: true, force: true });
  const server = await startMockLLM({ script: { turns: [] } });
  const cold = await once(server, baseEnv); // also warms the disk cache and creates the session database
  const runs = [];
  const bare = [];
  const bash = [];
  for (let i = 0; i < RUNS; i++) {
    runs.push(await once(server, baseEnv));
    bare.push(bareNode(cliEnv(server, baseEnv)));
    bash.push(bashCommands(cliEnv(server, baseEnv)));
  }
  await server.close();

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const wall = median(runs.map((r) => r.wallMs));
  const first = median(runs.map((r) => r.firstRequestMs));
  const rss = median(runs.map((r) => r.rssMb));
  const bareMs = median(bare);
  const bashMs = median(bash.map((b) => b.ms));
  const floorMs = bareMs + bashMs;
  const ms = (x) => `${x.toFixed(0)} ms`;
  console.log(`gyre run, ${TURNS}-turn coding session, ${label} (median of ${RUNS} runs, warm code cache):`);
  console.log(
    `  ${(wall / 1000).toFixed(3)} s wall (target < 0.35 s): ${(wall / floorMs).toFixed(2)}x the floor of ${ms(floorMs)}, gyre's own ${ms(wall - floorMs)}`,
  );
  console.log(
    `  first model request after ${ms(first)}: ${(first / bareMs).toFixed(2)}x node -e 0 (target <= 2x), gyre's own ${ms(first - bareMs)}`,
  );
  console.log(`  peak memory ${hasTime ? `${rss.toFixed(0)} MB` : "n/a (no /usr/bin/time)"} (target < 120 MB)`);
  console.log(
    `  baselines, same run and environment: node -e 0 ${ms(bareMs)}; ` +
      `the script's ${bash[0].count} Bash commands run directly ${ms(bashMs)}`,
  );
  console.log(
    `  first run, empty code cache: ${(cold.wallMs / 1000).toFixed(3)} s wall, first model request after ${ms(cold.firstRequestMs)}`,
  );
}

await measure("this environment", process.env);
// Reading NODE_EXTRA_CA_CERTS costs every Node start tens of ms (gyre's and each `node` the
// script runs); most machines do not set it, so show those numbers too.
if (process.env.NODE_EXTRA_CA_CERTS) {
  const { NODE_EXTRA_CA_CERTS: _unused, ...withoutExtraCerts } = process.env;
  await measure("without NODE_EXTRA_CA_CERTS", withoutExtraCerts);
}
rmSync(project, { recursive: true, force: true });
rmSync(codeCache, { recursive: true, force: true });
