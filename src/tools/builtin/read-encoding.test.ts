import { describe, expect, it } from "vitest";
import { decodeFile, detectTextFormat, encodeFile, looksBinary } from "./read-encoding.js";

describe("text formats", () => {
  it("detects UTF-8, BOMs and Latin-1", () => {
    expect(detectTextFormat(Buffer.from("plain ascii"), true)).toEqual({ encoding: "utf8", bom: false });
    expect(detectTextFormat(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), true)).toEqual({
      encoding: "utf8",
      bom: true,
    });
    expect(detectTextFormat(Buffer.from([0xff, 0xfe, 0x41, 0]), true)).toEqual({
      encoding: "utf16le",
      bom: true,
    });
    expect(detectTextFormat(Buffer.from("caf\xe9", "latin1"), true)).toEqual({
      encoding: "latin1",
      bom: false,
    });
  });

  it("allows a UTF-8 character cut at the end of a sample, but not of a whole file", () => {
    const cut = Buffer.from("ab€", "utf8").subarray(0, 4);
    expect(detectTextFormat(cut, false).encoding).toBe("utf8");
    expect(detectTextFormat(cut, true).encoding).toBe("latin1");
  });

  it("round-trips every byte through Windows-1252", () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const format = { encoding: "latin1" as const, bom: false };
    const text = decodeFile(bytes, format);
    expect(text.length).toBe(256);
    expect(text.slice(0x80, 0x81)).toBe("€");
    expect(text.slice(0x93, 0x95)).toBe("“”");
    const encoded = encodeFile(text, format);
    expect(encoded.ok && encoded.bytes.equals(bytes)).toBe(true);
  });

  it("refuses characters an encoding cannot hold instead of replacing them", () => {
    expect(encodeFile("ok 😀", { encoding: "latin1", bom: false })).toEqual({ ok: false, character: "😀" });
  });

  it("keeps BOMs when encoding", () => {
    const utf8 = encodeFile("a", { encoding: "utf8", bom: true });
    expect(utf8.ok && [...utf8.bytes]).toEqual([0xef, 0xbb, 0xbf, 0x61]);
    const utf16 = encodeFile("a", { encoding: "utf16le", bom: true });
    expect(utf16.ok && [...utf16.bytes]).toEqual([0xff, 0xfe, 0x61, 0]);
  });

  it("tells binary from text", () => {
    const utf8 = { encoding: "utf8" as const, bom: false };
    expect(looksBinary(Buffer.from("text\twith\r\ncontrols\x1b[0m"), utf8)).toBe(false);
    expect(looksBinary(Buffer.from([0x41, 0x00, 0x42]), utf8)).toBe(true);
    expect(looksBinary(Buffer.from([1, 2, 3, 4, 0x41]), utf8)).toBe(true);
    expect(looksBinary(Buffer.from([0x41, 0, 0x42, 0]), { encoding: "utf16le", bom: true })).toBe(false);
  });
});
