import { describe, expect, it } from "vitest";
import { asksForHelp, namesPrintMode, wantsInteractive, withoutPrintFlag } from "./interactive.js";

describe("which gyre starts", () => {
  it("takes -p/--print anywhere before -- as print mode, never the terminal UI", () => {
    expect(namesPrintMode(["-p", "hi"])).toBe(true);
    expect(namesPrintMode(["--model", "gpt-5", "--print", "hi"])).toBe(true);
    expect(namesPrintMode(["hi", "--", "-p"])).toBe(false);
    expect(namesPrintMode(["mcp", "add", "x", "-p"])).toBe(false);
    expect(wantsInteractive(["-p", "hi"], true, true)).toBe(false);
    expect(wantsInteractive(["hi"], true, true)).toBe(true);
    expect(withoutPrintFlag(["--model", "m", "-p", "hi", "--", "-p"])).toEqual(["--model", "m", "hi", "--", "-p"]);
  });

  it("prints help rather than starting the UI when --help or -h comes before --", () => {
    expect(asksForHelp(["--model", "m", "--help"])).toBe(true);
    expect(asksForHelp(["mcp", "add", "x", "--", "server", "-h"])).toBe(false);
    expect(wantsInteractive(["--model", "m", "-h"], true, true)).toBe(false);
    expect(wantsInteractive(["doctor"], true, true)).toBe(false);
  });
});
