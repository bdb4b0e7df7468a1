import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HeadTailBuffer } from "./head-tail-buffer.js";
import { OutputCapture } from "./output-capture.js";
import { SpillFile } from "./spill-file.js";

const tempPath = () => join(mkdtempSync(join(tmpdir(), "gyre-capture-")), "out.log");
const spillTo = (path: string, maxBytes?: number) => () => SpillFile.create(path, maxBytes);

describe("HeadTailBuffer", () => {
  it("keeps everything while it fits", () => {
    const buffer = new HeadTailBuffer(4, 4);
    buffer.append("abc");
    buffer.append("def");
    expect(buffer.parts()).toEqual({ head: "abcd", tail: "ef", dropped: 0 });
  });

  it("keeps head and tail and counts the gap", () => {
    const buffer = new HeadTailBuffer(3, 3);
    for (const chunk of ["abc", "defg", "hi", "jklmn"]) buffer.append(chunk);
    expect(buffer.parts()).toEqual({ head: "abc", tail: "lmn", dropped: 8 });
    expect(buffer.totalChars).toBe(14);
  });
});

describe("OutputCapture", () => {
  it("returns short output whole and never creates the spill file", () => {
    const path = tempPath();
    const capture = new OutputCapture({ openSpill: spillTo(path), headChars: 10, tailChars: 10 });
    capture.append("hello\n");
    capture.close();
    expect(capture.text()).toBe("hello\n");
    expect(capture.spillPath).toBeUndefined();
    expect(() => statSync(path)).toThrow();
  });

  it("spills the whole stream, from the first character, once it outgrows memory", () => {
    const path = tempPath();
    const capture = new OutputCapture({ openSpill: spillTo(path), headChars: 5, tailChars: 5 });
    const chunks = ["01234", "56789", "abcde", "fghij"];
    for (const chunk of chunks) capture.append(chunk);
    capture.close();
    expect(readFileSync(path, "utf8")).toBe(chunks.join(""));
    expect(capture.spillPath).toBe(path);
    expect(capture.spillOmittedBytes).toBe(0);
    expect(capture.text()).toBe(
      `01234\n\n... [10 characters omitted; the full output (20 characters) is in ${path}] ...\n\nfghij`,
    );
  });

  it("says how much even the file could not keep once the output passes its cap", () => {
    const path = tempPath();
    const capture = new OutputCapture({ openSpill: spillTo(path, 8192), headChars: 5, tailChars: 5 });
    for (let i = 0; i < 100; i += 1) capture.append(`${String(i).padStart(3, "0")}${"x".repeat(97)}\n`);
    capture.close();
    expect(statSync(path).size).toBe(8192);
    const note = capture
      .text()
      .match(
        /the output was (\d+) bytes, too long to keep whole: (\S+) has its first (\d+) and last (\d+) bytes \((\d+) bytes cut\)\] \.\.\.\n\n/,
      );
    expect(note).not.toBeNull();
    const [total, head, tail, cut] = [note![1], note![3], note![4], note![5]].map(Number);
    expect(note![2]).toBe(path);
    expect(total).toBe(10_100);
    expect(tail).toBe(4096);
    expect(head! + tail! + cut!).toBe(total);
    // The note in the file takes the place of the last bytes of the head.
    expect(head).toBeLessThan(4096);
    expect(capture.spillOmittedBytes).toBe(cut);
  });

  it("keeps output in memory when no spill file can be made, and says nothing of a file", () => {
    const capture = new OutputCapture({ openSpill: () => undefined, headChars: 5, tailChars: 5 });
    capture.append("0123456789abcdef");
    capture.close();
    expect(capture.spillPath).toBeUndefined();
    expect(capture.text()).toBe("01234\n\n... [6 characters omitted] ...\n\nbcdef");
  });

  it("hands out only what is new on each read", () => {
    const capture = new OutputCapture({ openSpill: spillTo(tempPath()), headChars: 5, tailChars: 5 });
    capture.append("one\n");
    expect(capture.takeUnread()).toBe("one\n");
    expect(capture.takeUnread()).toBe("");
    capture.append("two\n");
    capture.append("three and more\n");
    expect(capture.takeUnread()).toMatch(
      /^two\nt\n\n\.\.\. \[9 characters omitted from this read; .*\] \.\.\.\n\nmore\n$/,
    );
    expect(capture.text()).toContain("one\n");
  });

  it("holds a bounded amount in memory however much is appended", () => {
    const path = tempPath();
    const capture = new OutputCapture({ openSpill: spillTo(path) });
    const chunk = "x".repeat(64 * 1024);
    for (let i = 0; i < 200; i += 1) capture.append(chunk);
    capture.close();
    expect(capture.totalChars).toBe(200 * chunk.length);
    expect(capture.retainedChars).toBeLessThanOrEqual(2 * 28_000);
    expect(capture.text().length).toBeLessThan(30_000);
    expect(statSync(path).size).toBe(200 * chunk.length);
  });
});
