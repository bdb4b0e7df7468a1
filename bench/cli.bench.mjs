// `gyre run` as a user meets it, beside Claude Code doing the same work: a 20-turn scripted
// coding session (real Bash, Read, Edit, Grep, Glob tools against the mock LLM) run by both,
// alternately, against the same mock. Measured: wall time and peak memory from process start to
// exit, the time from process start to the first model request, and each turn's gap (from one
// model request to the next: the CLI handling the answer, running the tool and sending again),
// by the kind of tool the turn called.
// Targets (issue 30): wall at most 0.25x Claude Code's, peak memory at most 100 MB, each kind of
// turn gap at most 0.3x Claude Code's, the first request within 2x the wall of `node -e 0`.
// Claude Code 2.x on Linux has no Glob or Grep tool (it directs the model to `find` and `grep`
// through Bash), so its session runs those commands where Gyre's runs the tools
// (scripts/coding-session.mjs). Claude Code is installed on demand into the compat cache
// (`npm run compat:install -- claude-code`, ~240 MB); GYRE_BENCH_CLAUDE_CODE=0 leaves it out.
// Floors from the same run bound Gyre's figures: `node -e 0` in the same environment, and that
// plus the script's Bash commands run directly. The first run of each starts with empty caches
// (code cache, session database) and is reported apart.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startMockLLM } from "../dist/testing/index.js";
import { codingScript, createProject, turnKinds } from "../scripts/coding-session.mjs";

const RUNS = Number(process.env.GYRE_BENCH_CLI_RUNS || 5);
const TURNS = 20;
const PROMPT = "The tests fail. Fix the bug.";
const cli = resolve(process.env.GYRE_CLI ?? "dist/bin/gyre.js");
const hasTime = existsSync("/usr/bin/time");

// One project for every run, as a person works in one repository: its session database
// already exists after the first run; the source files are reset before each run.
const project = mkdtempSync(join(tmpdir(), "gyre-bench-"));
// A code cache of the bench's own, so the first run really starts without one.
const codeCache = mkdtempSync(join(tmpdir(), "gyre-bench-code-cache-"));
// Claude Code's home (its ~/.claude: settings, sessions), kept from run to run as a user's is.
const claudeHome = mkdtempSync(join(tmpdir(), "gyre-bench-claude-home-"));

/** The two programs: how each is started for the session. */
const gyre = {
  name: "gyre",
  script: () => codingScript(project, TURNS),
  command: (server, baseEnv) => ({
    file: process.execPath,
    args: [
      cli,
      "run",
      PROMPT,
      "--output-format",
      "json",
      "--cwd",
      project,
      "--permission-mode",
      "bypassPermissions",
      "--setting-sources",
      "",
    ],
    env: gyreEnv(server, baseEnv),
  }),
};

function claudeCode(binary, version) {
  return {
    name: `Claude Code ${version}`,
    script: () => codingScript(project, TURNS, { searchWithBash: true }),
    command: (server, baseEnv) => ({
      file: binary,
      args: ["-p", PROMPT, "--output-format", "json", "--dangerously-skip-permissions"],
      env: {
        ...baseEnv,
        HOME: claudeHome,
        ANTHROPIC_API_KEY: "bench",
        ANTHROPIC_BASE_URL: new URL(server.baseURL).origin,
        // Its todo list as TodoWrite, the tool the script calls (2.x's default is the Task tools).
        CLAUDE_CODE_ENABLE_TASKS: "0",
        // No update checks, telemetry or other traffic that has nowhere to go here.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        // --dangerously-skip-permissions refuses to run as root outside a sandbox it knows of.
        IS_SANDBOX: "1",
      },
    }),
  };
}

function gyreEnv(server, baseEnv) {
  return {
    ...baseEnv,
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: server.baseURL,
    NODE_COMPILE_CACHE: codeCache,
    // Sessions stay in the scratch project (as before the user-wide default), not in ~/.gyre.
    GYRE_HOME: join(project, ".gyre"),
  };
}

/** Claude Code's binary from the compat cache (installed now if need be), or undefined and why. */
async function findClaudeCode() {
  if (process.env.GYRE_BENCH_CLAUDE_CODE === "0") return { why: "GYRE_BENCH_CLAUDE_CODE=0" };
  try {
    const { installPeer, claudeCodeBinary } = await import("../scripts/compat-install.mjs");
    const { dir } = await installPeer("claude-code");
    const binary = claudeCodeBinary(dir);
    const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim().split(" ")[0];
    return { program: claudeCode(binary, version) };
  } catch (error) {
    return { why: `it could not be installed (${error.message.split("\n")[0]})` };
  }
}

/** One session of `program`: wall, first request, peak memory and the gap after each turn. */
async function once(program, server, requests, baseEnv) {
  createProject(project);
  server.setScript(program.script());
  server.reset();
  requests.length = 0;
  const { file, args, env } = program.command(server, baseEnv);
  const command = hasTime ? "/usr/bin/time" : file;
  const commandArgs = hasTime ? ["-f", "GYRE_MAXRSS_KB=%M", file, ...args] : args;
  const started = performance.now();
  const child = spawn(command, commandArgs, { cwd: project, stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${program.name} failed (${code}): ${stderr}${stdout}`);
  const result = JSON.parse(stdout);
  if (result.num_turns !== TURNS) throw new Error(`${program.name}: expected ${TURNS} turns, got ${result.num_turns}`);
  // The session's own requests: the first one of each turn of the script (a retry or a side
  // request of another kind would repeat a turn index).
  const byTurn = new Map();
  for (const request of requests) if (!byTurn.has(request.turn)) byTurn.set(request.turn, request.at);
  const gaps = [];
  for (let turn = 0; turn + 1 < TURNS; turn++) {
    if (byTurn.has(turn) && byTurn.has(turn + 1)) gaps.push(byTurn.get(turn + 1) - byTurn.get(turn));
  }
  const rssMb = Number(/GYRE_MAXRSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024;
  return { wallMs, firstRequestMs: requests[0].at - started, rssMb, gaps };
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;

/**
 * Median gap by the kind of tool the turn called, over every run. The first turn is apart: it
 * also pays for what a CLI loads once it has started (Gyre: the shell parser, the session store).
 */
function gapsByKind(runs) {
  const kinds = turnKinds(TURNS).map((kind, turn) => (turn === 0 ? `first turn (${kind})` : kind));
  const by = new Map();
  for (const run of runs) {
    run.gaps.forEach((gap, turn) => {
      const kind = kinds[turn];
      if (kind) by.set(kind, [...(by.get(kind) ?? []), gap]);
    });
  }
  return new Map([...by].map(([kind, gaps]) => [kind, median(gaps)]));
}

/** Every number for one environment of the CLIs, printed under `label`. */
async function measure(label, baseEnv, other) {
  rmSync(codeCache, { recursive: true, force: true });
  mkdirSync(codeCache, { recursive: true });
  const requests = [];
  const server = await startMockLLM({
    script: { turns: [] },
    onRequest: (request) => requests.push({ turn: request.turn, at: performance.now() }),
  });
  const programs = other ? [gyre, other] : [gyre];
  const cold = new Map();
  // The first runs also warm the disk cache and create the session databases.
  for (const program of programs) cold.set(program, await once(program, server, requests, baseEnv));
  const runs = new Map(programs.map((program) => [program, []]));
  const bare = [];
  const bash = [];
  for (let i = 0; i < RUNS; i++) {
    for (const program of programs) runs.get(program).push(await once(program, server, requests, baseEnv));
    bare.push(bareNode(gyreEnv(server, baseEnv)));
    bash.push(bashCommands(gyreEnv(server, baseEnv)));
  }
  await server.close();

  const summary = (program) => {
    const list = runs.get(program);
    return {
      wall: median(list.map((r) => r.wallMs)),
      first: median(list.map((r) => r.firstRequestMs)),
      rss: median(list.map((r) => r.rssMb)),
      gaps: gapsByKind(list),
    };
  };
  const ours = summary(gyre);
  const theirs = other ? summary(other) : undefined;
  const bareMs = median(bare);
  const bashMs = median(bash.map((b) => b.ms));
  const floorMs = bareMs + bashMs;
  const vs = (mine, baseline) => (baseline ? `${(mine / baseline).toFixed(2)}x` : "n/a");

  console.log(
    `gyre run${other ? ` and ${other.name}` : ""}, ${TURNS}-turn coding session, ${label} ` +
      `(median of ${RUNS} runs each${other ? ", alternated" : ""}, warm caches):`,
  );
  console.log(
    `  wall: gyre ${(ours.wall / 1000).toFixed(3)} s` +
      (theirs
        ? `, ${other.name} ${(theirs.wall / 1000).toFixed(3)} s: ${vs(ours.wall, theirs.wall)} (target <= 0.25x)`
        : "") +
      `; gyre's floor (node -e 0 + the script's ${bash[0].count} Bash commands) ${ms(floorMs)}, gyre's own ${ms(ours.wall - floorMs)}`,
  );
  console.log(
    `  first model request: gyre after ${ms(ours.first)}: ${vs(ours.first, bareMs)} node -e 0 (${ms(bareMs)}; target <= 2x), ` +
      `gyre's own ${ms(ours.first - bareMs)}` +
      (theirs ? `; ${other.name} after ${ms(theirs.first)}` : ""),
  );
  const memory = (rss) => (hasTime ? `${rss.toFixed(0)} MB` : "n/a (no /usr/bin/time)");
  console.log(
    `  peak memory: gyre ${memory(ours.rss)} (target <= 100 MB)${theirs ? `, ${other.name} ${memory(theirs.rss)}` : ""}`,
  );
  const gapLine = [...ours.gaps]
    .map(
      ([kind, gap]) =>
        `${kind} ${ms(gap)}` +
        (theirs?.gaps.has(kind) ? ` vs ${ms(theirs.gaps.get(kind))} (${vs(gap, theirs.gaps.get(kind))})` : ""),
    )
    .join(", ");
  console.log(`  turn gaps by the turn's tool, median: ${gapLine}${theirs ? " (target <= 0.3x each)" : ""}`);
  for (const program of programs) {
    const run = cold.get(program);
    console.log(
      `  first run of ${program.name}, empty caches: ${(run.wallMs / 1000).toFixed(3)} s wall, ` +
        `first model request after ${ms(run.firstRequestMs)}`,
    );
  }
}

const found = await findClaudeCode();
if (!found.program) console.log(`Claude Code is not measured beside gyre run: ${found.why}.`);
await measure("this environment", process.env, found.program);
// Reading NODE_EXTRA_CA_CERTS costs every Node start tens of ms (gyre's and each `node` the
// script runs); most machines do not set it, so show those numbers too.
if (process.env.NODE_EXTRA_CA_CERTS) {
  const { NODE_EXTRA_CA_CERTS: _unused, ...withoutExtraCerts } = process.env;
  await measure("without NODE_EXTRA_CA_CERTS", withoutExtraCerts, found.program);
}
rmSync(project, { recursive: true, force: true });
rmSync(codeCache, { recursive: true, force: true });
rmSync(claudeHome, { recursive: true, force: true });
