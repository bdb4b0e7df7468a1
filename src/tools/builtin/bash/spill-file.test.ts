import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_SPILL_BYTES, SpillFile } from "./spill-file.js";

const tempPath = () => join(mkdtempSync(join(tmpdir(), "gyre-spill-")), "out.log");

/** Deterministic text of `length` characters with no two neighbouring windows alike. */
function sample(length: number, seed: number): string {
  let text = "";
  for (let i = 0; text.length < length; i += 1) text += `${seed}:${i};`;
  return text.slice(0, length);
}

/** What a capped file must hold for `output`: head, the note, and the tail, in order. */
function expectHeadAndTail(path: string, output: string, cap: number) {
  const file = readFileSync(path, "latin1");
  const bytes = Buffer.from(output).toString("latin1");
  expect(file.length).toBe(cap);
  const note =
    /\n\n\.\.\. \[(\d+) bytes of output cut here: this file keeps the first (\d+) and the last (\d+) of (\d+) bytes\] \.\.\. *\n\n/.exec(
      file,
    );
  expect(note).not.toBeNull();
  const [, omitted, head, tail, total] = note!.slice(0).map(Number);
  expect(total).toBe(bytes.length);
  expect(head! + tail! + omitted!).toBe(total);
  expect(file.slice(0, note!.index)).toBe(bytes.slice(0, head));
  expect(note!.index).toBe(head);
  expect(file.slice(note!.index + note![0].length)).toBe(bytes.slice(bytes.length - tail!));
}

describe("SpillFile", () => {
  it("is the output byte for byte while it fits the cap", () => {
    const path = tempPath();
    const file = SpillFile.create(path, 8192)!;
    const output = sample(8192, 1);
    file.write(output.slice(0, 5000));
    file.write(output.slice(5000));
    file.close();
    expect(readFileSync(path, "utf8")).toBe(output);
    expect(file.cut).toBe(false);
    expect(file.omittedBytes).toBe(0);
  });

  it.each([
    ["one chunk far past the cap", [100_000]],
    ["small chunks that wrap the ring many times", Array.from({ length: 400 }, () => 97)],
    ["chunks that end exactly on the cap and the ring", [8192, 4096, 4096, 1]],
    ["chunks larger than the ring after the cap", [9000, 5000, 3]],
    ["uneven chunks", [1, 8190, 2, 3000, 2500, 777, 6000, 13]],
  ])("keeps the head, a note and the tail, in order, for %s", (_name, sizes) => {
    const path = tempPath();
    const file = SpillFile.create(path, 8192)!;
    const output = sample(
      sizes.reduce((a, b) => a + b, 0),
      sizes.length,
    );
    let at = 0;
    for (const size of sizes) {
      file.write(output.slice(at, at + size));
      expect(statSync(path).size).toBeLessThanOrEqual(8192);
      at += size;
    }
    file.close();
    expect(file.cut).toBe(true);
    expectHeadAndTail(path, output, 8192);
  });

  it("counts bytes, not characters, for multi-byte output", () => {
    const path = tempPath();
    const file = SpillFile.create(path, 4096)!;
    const output = "é".repeat(5000);
    file.write(output);
    file.close();
    expect(file.totalBytes).toBe(10_000);
    expectHeadAndTail(path, output, 4096);
  });

  it("is capped at 64 MiB by default", () => {
    expect(MAX_SPILL_BYTES).toBe(64 * 1024 * 1024);
  });

  it("deletes the file when discarded, and ignores writes after", () => {
    const path = tempPath();
    const file = SpillFile.create(path, 8192)!;
    file.write("abc");
    file.discard();
    file.write("def");
    expect(file.usable).toBe(false);
    expect(() => statSync(path)).toThrow();
  });
});
