// Benchmark: what verifying the opened file (issue 26, finding 4) adds to a Read or a Write.
// In the same run, interleaved:
// - Read: the file opened as Read did before (realpath, stat, open by path) against
//   openVerified of the approved real path, as Read now does in a run (no realpath: the loop
//   hands it the path its permission check resolved; the folder is held by O_PATH and checked
//   through /proc/self/fd, its entry looked at, then the name opened in it with O_NOFOLLOW),
//   each followed by what Read then does (fstat, read 4 KB, close);
// - Write: the old atomic write (bench/baseline/atomic-write.ts: temp file created and renamed
//   by path) against atomicWriteFile writing the approved real path through the held folder;
// - for scale, whole Read and Write tool calls as the loop runs them (with approvedPath).
// Files live on tmpfs (/dev/shm when there is one) so that fsync's cost does not hide the
// difference. Target: under 0.2 ms added per call. Build first: npm run build
// Run: node bench/file-tools.bench.mjs
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { atomicWriteFile, openVerified } from "../dist/files/index.js";
import { readTool } from "../dist/tools/builtin/read.js";
import { writeTool } from "../dist/tools/builtin/write.js";
import { ToolSession } from "../dist/tools/tool-session.js";

const here = dirname(fileURLToPath(import.meta.url));
const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
const scratch = realpathSync(mkdtempSync(join(base, "gyre-file-bench-")));
const baselineFile = join(scratch, "atomic-write-before.mjs");
await build({
  entryPoints: [join(here, "baseline", "atomic-write.ts")],
  outfile: baselineFile,
  bundle: true,
  format: "esm",
  platform: "node",
  logLevel: "error",
});
const before = await import(baselineFile);

const folder = join(scratch, "project", "src", "module");
mkdirSync(folder, { recursive: true });
const file = join(folder, "file.txt");
const content = Buffer.from("x".repeat(4095) + "\n");
writeFileSync(file, content);
const use = { shown: file, toolName: "Read", action: "read" };
const buffer = Buffer.alloc(8192);

/** What Read does with the handle once it is open, the same for both. */
async function readThrough(handle) {
  await handle.stat();
  await handle.read(buffer, 0, buffer.length, 0);
  await handle.close();
}

const readBefore = async () => {
  const real = await realpath(file);
  await stat(real);
  await readThrough(await open(real, "r"));
};
const readVerified = async () => {
  await readThrough(await openVerified(file, use, { accept: () => {} }));
};
const writeBefore = () => before.atomicWriteFile(file, content, { toolName: "Write" });
const writeVerified = () => atomicWriteFile(file, content, { toolName: "Write", realPath: file });

const session = new ToolSession("bench");
const context = {
  cwd: scratch,
  signal: new AbortController().signal,
  sessionId: session.id,
  toolUseId: "bench",
  session,
  files: { approvedPath: file, mayRead: () => true },
  reportProgress() {},
  emit() {},
};
const read = readTool();
const write = writeTool();
const readCall = () => read.execute({ file_path: file }, context);
const writeCall = () => write.execute({ file_path: file, content: content.toString() }, context);

/**
 * Median microseconds of one call of each function. The functions take turns call by call, so
 * that both see the same load (the machine may be busy), and the median leaves out the spikes.
 */
async function perCall(fns, calls = 3000) {
  const samples = fns.map(() => []);
  for (let i = 0; i < calls; i++) {
    for (const [index, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      samples[index].push((performance.now() - start) * 1000);
    }
  }
  return samples.map((values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]);
}

try {
  // The tool calls must do the work: a failed call would be measured as a fast one.
  const checked = [await readCall(), await writeCall()].map((result) => String(result.content));
  if (!checked[0].startsWith("1\tx") || !checked[1].includes("has been updated")) throw new Error(checked.join("\n"));
  await perCall([readBefore, readVerified, writeBefore, writeVerified, readCall, writeCall], 300); // warm up
  const [oldRead, newRead] = await perCall([readBefore, readVerified]);
  const [oldWrite, newWrite] = await perCall([writeBefore, writeVerified]);
  const [readTotal, writeTotal] = await perCall([readCall, writeCall], 1000);
  const ms = (us) => (us / 1000).toFixed(3);
  const line = (name, old, now, total) =>
    console.log(
      `${name}: verified ${ms(now)} ms, as before ${ms(old)} ms (${(now / old).toFixed(2)}x): ` +
        `+${ms(now - old)} ms per call (target < 0.2 ms); whole ${name} tool call ${ms(total)} ms`,
    );
  line("Read", oldRead, newRead, readTotal);
  line("Write", oldWrite, newWrite, writeTotal);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
