// Benchmark: the time a sandboxed `echo` adds over an unsandboxed one — the same shell
// started directly and through the run's bubblewrap arguments (and, second line, with a
// network allowance: the command joins the run's relay namespace through nsenter, or without nsenter
// starts its own socat relay). Medians of alternating runs.
// Each sandboxed run includes what a Bash call adds around it: the watch, and the check after the
// command (planted repositories, created protected files, the sandbox's mount points removed).
// The third line does so in a workspace of 2,000 folders (the check's walk lstats each).
// Target: under 15 ms added (Claude Code's sandbox adds tens of milliseconds).
// The machine's load moves both numbers: compare the ratio, measured in the same run.
// Build first: npm run build. Run: node bench/sandbox.bench.mjs
// GYRE_BENCH_SANDBOX=/other/dist/sandbox/index.js measures another build (a before/after comparison).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const modulePath = process.env.GYRE_BENCH_SANDBOX
  ? pathToFileURL(resolve(process.env.GYRE_BENCH_SANDBOX)).href
  : "../dist/sandbox/index.js";
const { OsSandbox, resolvePolicy } = await import(modulePath);

const ROUNDS = 40;
const cwd = mkdtempSync(join(tmpdir(), "gyre-sandbox-bench-"));

function run(file, args) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(file, args, { cwd, stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.resume();
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`exit ${code}`))));
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The command as a sandboxed Bash call runs it: watched, wrapped, checked after. */
async function sandboxed(sandbox) {
  const start = performance.now();
  const watch = sandbox.watch(cwd);
  const wrapped = sandbox.wrap("/bin/bash", ["-c", "echo hi"], cwd);
  await run(wrapped.file, wrapped.args);
  watch.finish("hi\n");
  return performance.now() - start;
}

async function measure(settings) {
  const policy = resolvePolicy({ settings, workspace: [cwd], rules: { allow: [], deny: [] }, cwd, home: cwd });
  const sandbox = await OsSandbox.start({ policy });
  const plain = [];
  const confined = [];
  try {
    await sandboxed(sandbox); // warm up
    for (let i = 0; i < ROUNDS; i++) {
      plain.push(await run("/bin/bash", ["-c", "echo hi"]));
      confined.push(await sandboxed(sandbox));
    }
  } finally {
    await sandbox.close();
  }
  return { plain: median(plain), confined: median(confined) };
}

for (const [name, settings, folders] of [
  ["no network", { enabled: true }, 0],
  ["allowed domains (proxy relay)", { enabled: true, network: { allowedDomains: ["example.com"] } }, 0],
  ["no network, 2,000 folders in the workspace", { enabled: true }, 2000],
]) {
  for (let i = 0; i < folders; i++) mkdirSync(join(cwd, `d${i % 20}`, `e${i}`), { recursive: true });
  const { plain, confined } = await measure(settings);
  console.log(
    `sandboxed echo, ${name}: ${confined.toFixed(1)} ms against ${plain.toFixed(1)} ms unsandboxed, ` +
      `+${(confined - plain).toFixed(1)} ms (target < 15 ms), ${(confined / plain).toFixed(2)}x`,
  );
}
rmSync(cwd, { recursive: true, force: true });
