// Benchmark: the time to decide one Bash permission — PermissionPolicy.evaluate, which parses
// the line with tree-sitter-bash, analyses it and matches the rules — beside the
// hand-written splitter it replaced (bench/baseline/split-command.ts, parse only), in the
// same run. Target: under 0.2 ms for a typical command. Build first: npm run build
// Run: node bench/permissions.bench.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { loadShellParser, PermissionPolicy } from "../dist/permissions/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "gyre-perm-bench-"));
const baselineFile = join(scratch, "split-command.mjs");
await build({
  entryPoints: [join(here, "baseline", "split-command.ts")],
  outfile: baselineFile,
  bundle: true,
  format: "esm",
  platform: "node",
  logLevel: "error",
});
const { splitCommand } = await import(baselineFile);

const loadStart = performance.now();
await loadShellParser();
const loadMs = performance.now() - loadStart;

const policy = new PermissionPolicy({
  cwd: scratch,
  home: scratch,
  allow: ["Bash(npm test:*)", "Bash(git status:*)", "Bash(git diff:*)", "Bash(ls:*)", "Bash(cat:*)", "Bash(grep:*)"],
  deny: ["Bash(rm -rf:*)", "Bash(git push --force:*)"],
});

const COMMANDS = {
  typical: ["npm test", "git status", "ls -la src", "git diff -- src/app.ts", "cat package.json | grep version"],
  compound: [
    "npm test -- --watch=false 2>&1 | tail -n 40",
    "cd packages/core && npm test && git status --short > status.txt",
    'git commit -m "fix: keep the user\'s file when the disk is full" && git push origin main',
  ],
  heredoc: ["cat <<'EOF' > notes.md\n# Notes\n\nSome text with $dollars and `ticks`.\nEOF"],
};

const decide = (command) =>
  policy.evaluate({ toolName: "Bash", input: { command }, sideEffect: "mutating", cwd: scratch });

/** Median microseconds per call of `fn` over `commands`, alternating with the baseline. */
function perCall(fn, commands, rounds = 15, iterations = 400) {
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) for (const command of commands) fn(command);
    samples.push(((performance.now() - start) * 1000) / (iterations * commands.length));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

console.log(`tree-sitter-bash load (once per process): ${loadMs.toFixed(0)} ms`);
for (const [name, commands] of Object.entries(COMMANDS)) {
  for (const command of commands) {
    decide(command); // warm up
    splitCommand(command);
  }
  const gyre = perCall(decide, commands);
  const parseOnly = perCall((command) => splitCommand(command), commands);
  console.log(
    `Bash permission, ${name} command: ${(gyre / 1000).toFixed(3)} ms per decision ` +
      `(target < 0.2 ms; old splitter, parse only: ${(parseOnly / 1000).toFixed(3)} ms, ${(gyre / parseOnly).toFixed(1)}x)`,
  );
}
rmSync(scratch, { recursive: true, force: true });
