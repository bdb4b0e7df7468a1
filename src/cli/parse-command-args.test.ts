import { describe, expect, it } from "vitest";
import { closest, parseCommandArgs, unknownOptionMessage } from "./parse-command-args.js";

const options = {
  "max-turns": { type: "string" },
  "max-budget-usd": { type: "string" },
  verbose: { type: "boolean" },
  model: { type: "string" },
  resume: { type: "string", short: "r" },
} as const;

describe("parseCommandArgs", () => {
  it("names an unknown option and suggests the closest known one, keeping node's error code", () => {
    const thrown = (() => {
      try {
        parseCommandArgs({ args: ["--max-turn", "3"], options });
      } catch (error) {
        return error as Error & { code: string };
      }
    })();
    expect(thrown?.message).toBe("unknown option '--max-turn'; did you mean --max-turns?");
    expect(thrown?.code).toBe("ERR_PARSE_ARGS_UNKNOWN_OPTION");
  });

  it("parses known options as parseArgs does", () => {
    expect(parseCommandArgs({ args: ["-r", "abc", "--verbose"], options }).values).toEqual({
      resume: "abc",
      verbose: true,
    });
  });

  it("takes Claude Code's camelCase spellings of known options, and only of known ones", () => {
    const parsed = parseCommandArgs({
      args: ["--maxTurns", "3", "--maxBudgetUsd=0.5", "--", "--maxTurns"],
      options,
      allowPositionals: true,
    });
    expect(parsed.values).toEqual({ "max-turns": "3", "max-budget-usd": "0.5" });
    expect(parsed.positionals).toEqual(["--maxTurns"]);
    expect(() => parseCommandArgs({ args: ["--fooBar"], options })).toThrow(/unknown option '--fooBar'/);
  });

  it("suggests nothing when no option is close", () => {
    expect(unknownOptionMessage("--frobnicate", options)).toBe("unknown option '--frobnicate'");
    expect(unknownOptionMessage("--modle=x", options)).toBe("unknown option '--modle=x'; did you mean --model?");
  });
});

describe("closest", () => {
  it("takes typos, transpositions and unambiguous prefixes", () => {
    const known = ["--max-turns", "--max-budget-usd", "--verbose", "--model", "-r"];
    expect(closest("--max-tursn", known)).toBe("--max-turns");
    expect(closest("--verb", known)).toBe("--verbose");
    expect(closest("--max-budget", known)).toBe("--max-budget-usd");
    expect(closest("-x", ["--help"])).toBeUndefined();
  });
});
