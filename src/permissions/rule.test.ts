import { describe, expect, it } from "vitest";
import { formatRule, parseRule } from "./rule.js";
import { ruleAppliesTo } from "./tool-kinds.js";

describe("parseRule", () => {
  it.each([
    ["Bash", { toolName: "Bash" }],
    ["Bash(*)", { toolName: "Bash" }],
    ["Bash()", { toolName: "Bash" }],
    ["Bash(npm run test:*)", { toolName: "Bash", content: "npm run test:*" }],
    ["Bash(echo (hi))", { toolName: "Bash", content: "echo (hi)" }],
    ["  Read(./src/**)  ", { toolName: "Read", content: "./src/**" }],
    ["WebFetch(domain:example.com)", { toolName: "WebFetch", content: "domain:example.com" }],
    ["mcp__github", { toolName: "mcp__github" }],
    ["mcp__github__*", { toolName: "mcp__github__*" }],
  ])("parses %j", (text, expected) => {
    const parsed = parseRule({ rule: text, source: "/s.json" }, "allow");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.rule).toMatchObject({
      ...expected,
      behavior: "allow",
      source: "/s.json",
      raw: text.trim(),
    });
    if (!("content" in expected)) expect(parsed.rule.content).toBeUndefined();
  });

  it.each([
    ["", "empty rule"],
    ["Bash(npm test", "missing closing"],
    ["Bash npm)", "unbalanced"],
    ["Ba sh", "invalid tool name"],
    ["(npm test)", "invalid tool name"],
  ])("rejects %j", (text, message) => {
    const parsed = parseRule({ rule: text }, "deny");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(message);
  });

  it("formats rules back", () => {
    expect(formatRule("Bash", "git status")).toBe("Bash(git status)");
    expect(formatRule("Read")).toBe("Read");
  });
});

describe("ruleAppliesTo", () => {
  it.each([
    ["Edit", "Write", true],
    ["Edit", "MultiEdit", true],
    ["Edit", "NotebookEdit", true],
    ["Edit", "Read", false],
    ["Write", "Edit", false],
    ["Read", "Grep", true],
    ["Read", "Glob", true],
    ["Read", "Write", false],
    ["mcp__github", "mcp__github__create_issue", true],
    ["mcp__github", "mcp__githubx__create_issue", false],
    ["mcp__github__*", "mcp__github__create_issue", true],
    ["mcp__github__create_issue", "mcp__github__create_issue", true],
    ["mcp__github__create_issue", "mcp__github__delete_repo", false],
    ["Bash", "BashOutput", false],
  ])("%s applies to %s: %s", (rule, tool, expected) => {
    expect(ruleAppliesTo(rule, tool)).toBe(expected);
  });
});
