// Benchmark: the Grep and Glob tools against ripgrep and tinyglobby called directly, on
// this repository and its node_modules. Build first: npx tsc -p tsconfig.build.json
// Run: node bench/search.bench.mjs
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { glob } from "tinyglobby";
import { crawlGlob } from "../dist/tools/builtin/glob-crawl.js";
import { globOptions, skippedFolders } from "../dist/tools/builtin/glob-run.js";
import { globTool } from "../dist/tools/builtin/glob-tool.js";
import { grepTool } from "../dist/tools/builtin/grep/index.js";
import { ToolSession } from "../dist/tools/index.js";
import { PermissionPolicy } from "../dist/permissions/index.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = 6;
/** Glob runs are short and noisy on a shared machine: take the median of more of them. */
const GLOB_RUNS = 25;

const context = () => ({
  cwd: repo,
  signal: new AbortController().signal,
  sessionId: "bench",
  toolUseId: "bench",
  session: new ToolSession("bench"),
  reportProgress() {},
  emit() {},
});

/** Read deny rules of the kinds settings have (a file, a name anywhere, a folder, outside). */
const READ_RULES = ["Read(./.env)", "Read(**/*.pem)", "Read(./secrets/**)", "Read(~/.ssh/**)"];

/**
 * A tool context as the tool-call pipeline gives it (ToolContext.files): the policy's judged
 * path and its per-file Read check, here with `rules` as deny rules. The policy and its
 * decision are made before the timing starts: they were there before the per-file check.
 */
function guardedContext(toolName, input, rules) {
  const policy = new PermissionPolicy({ cwd: repo, deny: rules });
  const decision = policy.evaluate({ toolName, input, sideEffect: "read-only", cwd: repo });
  const files = { approvedPath: decision.path, mayRead: (file, found) => policy.mayRead(file, toolName, found) };
  return () => ({ ...context(), files });
}

/** Medians of two ways to do the same work, run alternately so load changes hit both alike. */
async function medians(first, second, runs = RUNS) {
  await first(); // warm the file system cache and the JIT
  await second();
  const times = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const [index, run] of (i % 2 === 0 ? [first, second] : [second, first]).entries()) {
      const start = performance.now();
      await run();
      times[(i % 2 === 0) === (index === 0) ? 0 : 1].push(performance.now() - start);
    }
  }
  return times.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
}

function rg(args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("rg", args, { cwd: repo, stdio: ["ignore", "pipe", "ignore"] });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolvePromise(Buffer.concat(chunks).toString("utf8")));
  });
}

function line(label, tool, base, baseName, toolName = "tool") {
  const ms = (value) => `${value.toFixed(0)} ms`;
  console.log(`${label}: ${(tool / base).toFixed(2)}x (${toolName} ${ms(tool)}, ${baseName} ${ms(base)})`);
}

async function benchGrep(pattern, path) {
  const input = { pattern, path, head_limit: 0 };
  const rgTool = grepTool({ backend: "ripgrep" });
  const jsTool = grepTool({ backend: "js" });
  const direct = () => rg(["--files-with-matches", "-e", pattern, "--", path]);
  const [viaTool, rgTime] = await medians(() => rgTool.execute(input, context()), direct);
  const [viaJs, rgTime2] = await medians(() => jsTool.execute(input, context()), direct);
  const where = `"${pattern}" in ${path}`;
  line(`grep tool/rg ${where}`, viaTool, rgTime, "rg");
  line(`grep js fallback/rg ${where}`, viaJs, rgTime2, "rg");
  // The permission check of each file found (issue 26): the same search with and without it.
  for (const [name, tool] of [
    ["rg", rgTool],
    ["js", jsTool],
  ]) {
    for (const [label, rules] of [
      ["no rules", []],
      [`${READ_RULES.length} Read rules`, READ_RULES],
    ]) {
      const checkedContext = guardedContext("Grep", input, rules);
      const [guarded, bare] = await medians(
        () => tool.execute(input, checkedContext()),
        () => tool.execute(input, context()),
      );
      line(`grep ${name} checked (${label})/unchecked ${where}`, guarded, bare, "unchecked", "checked");
    }
  }
}

async function benchGlob(pattern, path) {
  const tool = globTool();
  const cwd = resolve(repo, path);
  const [viaTool, direct] = await medians(
    () => tool.execute({ pattern, path }, context()),
    () => glob(pattern, { cwd, ...globOptions(pattern) }),
    GLOB_RUNS,
  );
  line(`glob tool/tinyglobby "${pattern}" in ${path}`, viaTool, direct, "tinyglobby");
  // The tool's crawl alone (no mtimes, no formatting) against the same baseline.
  const [crawl, direct2] = await medians(
    () => crawlGlob(pattern, cwd, skippedFolders(pattern)),
    () => glob(pattern, { cwd, ...globOptions(pattern) }),
    GLOB_RUNS,
  );
  line(`glob fast crawl/tinyglobby "${pattern}" in ${path}`, crawl, direct2, "tinyglobby", "crawl");
  for (const [label, rules] of [
    ["no rules", []],
    [`${READ_RULES.length} Read rules`, READ_RULES],
  ]) {
    const input = { pattern, path };
    const checkedContext = guardedContext("Glob", input, rules);
    const [guarded, bare] = await medians(
      () => tool.execute(input, checkedContext()),
      () => tool.execute(input, context()),
      GLOB_RUNS,
    );
    line(`glob checked (${label})/unchecked "${pattern}" in ${path}`, guarded, bare, "unchecked", "checked");
  }
}

const started = performance.now();
await benchGrep("function", "node_modules");
await benchGrep("ZodError", "node_modules");
await benchGrep("import", ".");
await benchGlob("**/*.js", "node_modules");
await benchGlob("**/*.d.ts", "node_modules");
await benchGlob("**/*.ts", ".");
console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
