import { closeSync, mkdtempSync, openSync, realpathSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { executeTool } from "../execute.js";
import { ToolSession } from "../tool-session.js";
import { fileStates } from "./file-state.js";
import { readTool } from "./read.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "gyre-read-1gb-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 100 bytes per line: a counter-free filler line, so the bulk can be written as one repeated chunk. */
const FILLER = `${"filler ".repeat(14).padEnd(99, "-")}\n`;
const FILLER_LINES_PER_CHUNK = 167_772; // ~16 MB
const CHUNKS = 64; // ~1 GB in all
const TAIL_LINES = 1000;

function writeLargeFile(path: string): number {
  const chunk = Buffer.from(FILLER.repeat(FILLER_LINES_PER_CHUNK));
  const fd = openSync(path, "w");
  try {
    for (let i = 0; i < CHUNKS; i++) writeSync(fd, chunk);
    const tail = Array.from({ length: TAIL_LINES }, (_, i) => `tail line ${i + 1}\n`).join("");
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
  return FILLER_LINES_PER_CHUNK * CHUNKS + TAIL_LINES;
}

it("reads a slice near the end of a 1 GB file with flat memory", { timeout: 180_000 }, async () => {
  const path = join(dir, "big.log");
  const totalLines = writeLargeFile(path);
  const session = new ToolSession("large-file");
  const context = {
    cwd: dir,
    signal: new AbortController().signal,
    sessionId: session.id,
    toolUseId: "big",
    session,
    reportProgress: () => {},
    emit: () => {},
  };

  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  let result: Awaited<ReturnType<typeof executeTool>>;
  try {
    result = await executeTool(readTool(), { file_path: path, offset: totalLines - 99, limit: 100 }, context);
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage.rss());

  expect(result.isError).toBeFalsy();
  // The file ends with a line break: the empty last line after it is still to come.
  const [body, note] = (result.content as string).split("\n\n");
  expect(note).toBe(
    `<system-reminder>Showing lines ${totalLines - 99}-${totalLines}; the file has more lines. Call Read with offset=${totalLines + 1} to continue.</system-reminder>`,
  );
  const lines = body!.split("\n");
  expect(lines).toHaveLength(100);
  expect(lines[0]).toBe(`${totalLines - 99}\ttail line ${TAIL_LINES - 99}`);
  expect(lines[99]).toBe(`${totalLines}\ttail line ${TAIL_LINES}`);
  expect(peak - rssBefore).toBeLessThan(100 * 1024 * 1024);

  // Paging back uses the line index the first read left in the session; same answer.
  const previous = await executeTool(readTool(), { file_path: path, offset: totalLines - 199, limit: 100 }, context);
  const previousLines = (previous.content as string).split("\n");
  expect(previousLines[0]).toBe(`${totalLines - 199}\ttail line ${TAIL_LINES - 199}`);
  expect(previousLines[99]).toBe(`${totalLines - 100}\ttail line ${TAIL_LINES - 100}`);
  const filler = await executeTool(readTool(), { file_path: path, offset: 5_000_000, limit: 1 }, context);
  expect(filler.content).toBe(
    `5000000\t${FILLER.slice(0, -1)}\n\n<system-reminder>Showing lines 5000000-5000000; the file has more lines. Call Read with offset=5000001 to continue.</system-reminder>`,
  );
  expect(fileStates(session).get(path)?.size).toBe(FILLER_LINES_PER_CHUNK * CHUNKS * 100 + 13_893);
});
