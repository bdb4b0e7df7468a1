import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { noColorRequested, stripColors, withoutColors } from "./no-color.js";

describe("NO_COLOR", () => {
  it("is asked for by a NO_COLOR that is set and not empty", () => {
    expect(noColorRequested({ NO_COLOR: "1" })).toBe(true);
    expect(noColorRequested({ NO_COLOR: "" })).toBe(false);
    expect(noColorRequested({})).toBe(false);
  });

  it("strips foreground and background colours of every kind and keeps bold, dim, inverse and resets", () => {
    expect(stripColors("\x1b[31mred\x1b[39m")).toBe("red");
    expect(stripColors("\x1b[1;32mbold green\x1b[22;39m")).toBe("\x1b[1mbold green\x1b[22m");
    expect(stripColors("\x1b[38;5;208mx\x1b[48;2;1;2;3my\x1b[90mz\x1b[0m")).toBe("xyz\x1b[0m");
    expect(stripColors("\x1b[7m \x1b[27m\x1b[2mdim\x1b[m")).toBe("\x1b[7m \x1b[27m\x1b[2mdim\x1b[m");
    expect(stripColors("\x1b[2K\x1b[1A plain")).toBe("\x1b[2K\x1b[1A plain");
  });

  it("wraps a stream so that writes lose their colours and the rest of the stream stays its own", () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    Object.assign(stream, { columns: 33, isTTY: true });
    const wrapped = withoutColors(stream);
    let events = 0;
    wrapped.on("resize", () => events++);
    stream.emit("resize");
    wrapped.write("\x1b[32m+ added\x1b[39m");
    expect(events).toBe(1);
    expect(wrapped.columns).toBe(33);
    expect(wrapped.isTTY).toBe(true);
    expect(String((stream as unknown as PassThrough).read())).toBe("+ added");
  });
});
