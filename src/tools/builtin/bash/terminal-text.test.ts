import { describe, expect, it } from "vitest";
import { TerminalTextCleaner } from "./terminal-text.js";

describe("TerminalTextCleaner", () => {
  it("drops colour codes and turns CRLF into LF", () => {
    const cleaner = new TerminalTextCleaner();
    expect(cleaner.push("\x1b[31mred\x1b[0m\r\nplain\r\n")).toBe("red\nplain\n");
  });

  it("holds back an escape sequence or CR split across chunks", () => {
    const cleaner = new TerminalTextCleaner();
    expect(cleaner.push("a\x1b[3")).toBe("a");
    expect(cleaner.push("2mb\r")).toBe("b");
    expect(cleaner.push("\nc")).toBe("\nc");
    expect(cleaner.flush()).toBe("");
  });

  it("drops OSC title sequences", () => {
    const cleaner = new TerminalTextCleaner();
    expect(cleaner.push("\x1b]0;title\x07text")).toBe("text");
  });
});
