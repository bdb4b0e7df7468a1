// Read the last 100 lines of a 1 GB file and report time and peak RSS growth.
// Run after `npx tsc -p tsconfig.build.json`: node bench/read-large-file.bench.mjs
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTool } from "../dist/tools/builtin/read.js";
import { ToolSession } from "../dist/tools/tool-session.js";

const LINE_BYTES = 100;
const CHUNK_LINES = 167_772; // ~16 MB per write
const CHUNKS = 64; // ~1 GB
const TAIL = 100;

const dir = mkdtempSync(join(tmpdir(), "gyre-bench-read-"));
const path = join(dir, "big.log");
try {
  const filler = `${"bench line ".repeat(9).padEnd(LINE_BYTES - 1, ".")}\n`;
  const chunk = Buffer.from(filler.repeat(CHUNK_LINES));
  const fd = openSync(path, "w");
  for (let i = 0; i < CHUNKS; i++) writeSync(fd, chunk);
  closeSync(fd);
  const totalLines = CHUNK_LINES * CHUNKS;

  const session = new ToolSession("bench");
  const context = {
    cwd: dir,
    signal: new AbortController().signal,
    sessionId: session.id,
    toolUseId: "bench",
    session,
    reportProgress() {},
    emit() {},
  };
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  // Read numbers the empty line after the file's final newline as Claude Code does (line
  // totalLines + 1): the last TAIL lines are the file's last TAIL - 1 and that one.
  const result = await readTool().execute({ file_path: path, offset: totalLines - TAIL + 2, limit: TAIL }, context);
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());

  const againStarted = performance.now();
  await readTool().execute({ file_path: path, offset: totalLines - 2 * TAIL + 2, limit: TAIL }, context);
  const againElapsed = performance.now() - againStarted;

  const lines = typeof result === "string" ? result : result.content;
  if (typeof lines !== "string" || lines.split("\n").length !== TAIL) {
    throw new Error(`unexpected Read result: ${JSON.stringify(result).slice(0, 300)}`);
  }
  const mb = (bytes) => Math.round(bytes / 1024 / 1024);
  console.log(`read-1gb-tail: ${Math.round(elapsed)} ms, peak rss +${mb(peak - rssBefore)} MB`);
  console.log(`read-1gb-tail-page-back (line index): ${Math.round(againElapsed)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
