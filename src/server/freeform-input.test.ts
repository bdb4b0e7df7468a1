import { describe, expect, it } from "vitest";
import { FreeformInputReader } from "./freeform-input.js";

function read(pieces: string[]): string[] {
  const reader = new FreeformInputReader();
  return pieces.map((piece) => reader.push(piece));
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

describe("FreeformInputReader", () => {
  const input = '*** Begin Patch\n+say "héllo" \\ to 😀\t\u0001done\n*** End Patch';

  it("reads the input text out of its arguments however they are cut, never inside a character", () => {
    const json = JSON.stringify({ input });
    for (const size of [1, 2, 3, 5, 7, 16]) {
      const deltas = read(split(json, size));
      expect(deltas.join("")).toBe(input);
      for (const delta of deltas) expect(delta).not.toMatch(/[\ud800-\udbff]$/);
    }
  });

  it("streams as the text arrives, with spaces around the key", () => {
    expect(read(['{ "input" : "ab', "c", '"}'])).toEqual(["ab", "c", ""]);
  });

  it("gives nothing for arguments of another shape", () => {
    expect(read(['{"other": 1, "input": "x"}']).join("")).toBe("");
    expect(read([`{${" ".repeat(80)}`, '"input": "x"}']).join("")).toBe("");
  });
});
