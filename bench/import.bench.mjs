// The cost of `import("gyre")` for a program that embeds the loop: how many module files it
// loads (by package) and how long the import takes. Baselines from the same run:
// `node -e 0` for the process, and `import("zod")`, which the loop's message schemas need
// whatever else is made lazy (its ~95 files are the floor of the module count).
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

const RUNS = 9;
const ROOT = resolve(import.meta.dirname, "..");
const SUBJECTS = ["zod", "gyre", "gyre/testing"];

/** Module files `import(specifier)` loads, grouped by package (Gyre's own under "gyre"). */
function modules(specifier) {
  const urls = JSON.parse(
    execFileSync(process.execPath, ["scripts/loaded-modules.mjs", specifier], { cwd: ROOT, encoding: "utf8" }),
  );
  const byPackage = new Map();
  for (const url of urls) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? "gyre";
    byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
  }
  return { total: urls.length, byPackage: [...byPackage].sort((a, b) => b[1] - a[1]) };
}

/** One fresh process: its wall time, and the time of the import inside it. */
function importOnce(specifier) {
  const started = performance.now();
  const inside = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`,
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
  return { wallMs: performance.now() - started, importMs: Number(inside) };
}

function bareNode() {
  const started = performance.now();
  execFileSync(process.execPath, ["-e", "0"]);
  return performance.now() - started;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const specifier of SUBJECTS) importOnce(specifier); // warm the disk cache
const bare = [];
const runs = Object.fromEntries(SUBJECTS.map((specifier) => [specifier, []]));
for (let i = 0; i < RUNS; i++) {
  bare.push(bareNode());
  for (const specifier of SUBJECTS) runs[specifier].push(importOnce(specifier));
}

const bareMs = median(bare);
const zodMs = median(runs.zod.map((run) => run.importMs));
console.log(`import() in a fresh process, median of ${RUNS} (node -e 0: ${bareMs.toFixed(0)} ms):`);
for (const specifier of SUBJECTS) {
  const count = modules(specifier);
  const importMs = median(runs[specifier].map((run) => run.importMs));
  const wallMs = median(runs[specifier].map((run) => run.wallMs));
  const packages = count.byPackage.map(([name, n]) => `${name} ${n}`).join(", ");
  const vsZod = specifier === "zod" ? "" : `, ${(importMs / zodMs).toFixed(2)}x import("zod")`;
  console.log(`  ${specifier}: ${count.total} modules (${packages})`);
  console.log(
    `    import ${importMs.toFixed(0)} ms${vsZod}; process ${wallMs.toFixed(0)} ms, ${(wallMs / bareMs).toFixed(2)}x node -e 0`,
  );
}
