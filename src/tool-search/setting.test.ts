import { describe, expect, it } from "vitest";
import { parseToolSearch } from "./setting.js";

describe("parseToolSearch", () => {
  it("takes ENABLE_TOOL_SEARCH's values and the option's", () => {
    expect(parseToolSearch(undefined, "x")).toEqual({ mode: "auto", percent: 10 });
    expect(parseToolSearch("", "x")).toEqual({ mode: "auto", percent: 10 });
    expect(parseToolSearch("auto", "x")).toEqual({ mode: "auto", percent: 10 });
    expect(parseToolSearch("auto:5", "x")).toEqual({ mode: "auto", percent: 5 });
    expect(parseToolSearch("auto:0", "x")).toEqual({ mode: "auto", percent: 0 });
    expect(parseToolSearch("auto:100", "x")).toEqual({ mode: "auto", percent: 100 });
    expect(parseToolSearch(true, "x")).toEqual({ mode: "always" });
    expect(parseToolSearch("true", "x")).toEqual({ mode: "always" });
    expect(parseToolSearch("1", "x")).toEqual({ mode: "always" });
    expect(parseToolSearch(false, "x")).toBeUndefined();
    expect(parseToolSearch("false", "x")).toBeUndefined();
    expect(parseToolSearch(" FALSE ", "x")).toBeUndefined();
    expect(parseToolSearch("0", "x")).toBeUndefined();
  });

  it("refuses anything else, naming where it came from", () => {
    for (const value of ["sometimes", "auto:", "auto:101", "auto:-1", "auto:x"])
      expect(() => parseToolSearch(value, "ENABLE_TOOL_SEARCH")).toThrow(/^ENABLE_TOOL_SEARCH must be true, false/);
  });
});
