import { describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { compileMatcher, matchValue } from "./matcher.js";

describe("compileMatcher", () => {
  it("matches everything when empty, missing or *", () => {
    for (const pattern of [undefined, "", "*", "  "]) {
      const match = compileMatcher(pattern, "test");
      expect(match("Bash")).toBe(true);
      expect(match(undefined)).toBe(true);
    }
  });

  it("matches plain names and alternations exactly, not as substrings", () => {
    const match = compileMatcher("Bash|Edit", "test");
    expect(match("Bash")).toBe(true);
    expect(match("Edit")).toBe(true);
    expect(match("BashOutput")).toBe(false);
    expect(match("MultiEdit")).toBe(false);
    expect(match(undefined)).toBe(false);
  });

  it("treats other patterns as regular expressions", () => {
    const match = compileMatcher("mcp__github__.*", "test");
    expect(match("mcp__github__create_issue")).toBe(true);
    expect(match("mcp__slack__post")).toBe(false);
    expect(compileMatcher("Notebook.*", "test")("NotebookEdit")).toBe(true);
  });

  it("rejects an invalid regular expression with config_error", () => {
    let thrown: unknown;
    try {
      compileMatcher("Bash(", "settings hooks.PreToolUse[0]");
    } catch (error) {
      thrown = error;
    }
    expect(isGyreError(thrown, "config_error")).toBe(true);
    expect((thrown as Error).message).toContain("settings hooks.PreToolUse[0]");
  });
});

describe("matchValue", () => {
  it("reads the field each event matches on", () => {
    expect(matchValue("PreToolUse", { tool_name: "Bash" })).toBe("Bash");
    expect(matchValue("SessionStart", { source: "resume" })).toBe("resume");
    expect(matchValue("PreCompact", { trigger: "auto" })).toBe("auto");
    expect(matchValue("Notification", {})).toBeUndefined();
  });

  it("is null for events that ignore matchers", () => {
    expect(matchValue("Stop", {})).toBeNull();
    expect(matchValue("UserPromptSubmit", { prompt: "hi" })).toBeNull();
  });
});
