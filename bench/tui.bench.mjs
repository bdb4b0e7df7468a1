// The interactive agent's start: from process start to a ready prompt (the status line's
// "Shift+Tab: mode", shown once keys are read raw), in a pseudo-terminal, next to a bare Ink
// program that renders one box. Target: within 1.5× of bare Ink (issue 14). Median of 5 runs,
// after one warm-up run of each (code caches filled).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pty from "@lydell/node-pty";

const RUNS = 5;
const cli = resolve(process.env.GYRE_CLI ?? "dist/bin/gyre.js");
const bare = resolve("bench/tui-bare-ink.mjs");
const project = mkdtempSync(join(tmpdir(), "gyre-bench-tui-"));
const env = { ...process.env, GYRE_HOME: mkdtempSync(join(tmpdir(), "gyre-bench-home-")), ANTHROPIC_API_KEY: "unused" };

/** Milliseconds from spawning `args` in a terminal until its output contains `ready`. */
function timeToReady(args, ready) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const terminal = pty.spawn(process.execPath, args, { cols: 120, rows: 40, cwd: project, env });
    let output = "";
    const timer = setTimeout(() => {
      terminal.kill();
      fail(new Error(`no "${ready}" within 20 s; output: ${output.slice(-500)}`));
    }, 20_000);
    terminal.onData((data) => {
      output += data;
      if (!output.includes(ready)) return;
      const ms = performance.now() - started;
      clearTimeout(timer);
      terminal.kill();
      done(ms);
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(args, ready) {
  await timeToReady(args, ready);
  const times = [];
  for (let run = 0; run < RUNS; run++) times.push(await timeToReady(args, ready));
  return median(times);
}

const inkMs = await measure([bare], "bare ink ready");
const gyreMs = await measure([cli], "Shift+Tab: mode");
const ratio = gyreMs / inkMs;
console.log(`bare Ink, one box:          ${inkMs.toFixed(0)} ms to first frame`);
console.log(`gyre (interactive):         ${gyreMs.toFixed(0)} ms to a ready prompt`);
console.log(`ratio: ${ratio.toFixed(2)}× (target ≤ 1.5×) ${ratio <= 1.5 ? "ok" : "OVER"}`);
