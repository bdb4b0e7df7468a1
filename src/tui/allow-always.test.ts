import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { persistAllowRules, suggestedRules } from "./allow-always.js";
import { PromptHistory } from "./prompt-history.js";

describe("allow always", () => {
  it("turns suggestions into Claude Code rules and adds them to .gyre/settings.local.json, keeping the file", async () => {
    const rules = suggestedRules([
      {
        type: "addRules",
        behavior: "allow",
        destination: "session",
        rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
      },
      { type: "addRules", behavior: "allow", destination: "session", rules: [{ toolName: "WebFetch" }] },
      { type: "setMode", mode: "acceptEdits", destination: "session" },
    ]);
    expect(rules).toEqual(["Bash(npm test:*)", "WebFetch"]);
    const cwd = mkdtempSync(join(tmpdir(), "gyre-allow-"));
    mkdirSync(join(cwd, ".gyre"));
    writeFileSync(
      join(cwd, ".gyre", "settings.local.json"),
      JSON.stringify({ env: { A: "1" }, permissions: { allow: ["Read"] } }),
    );
    await persistAllowRules(cwd, rules);
    await persistAllowRules(cwd, ["WebFetch"]);
    expect(JSON.parse(readFileSync(join(cwd, ".gyre", "settings.local.json"), "utf8"))).toEqual({
      env: { A: "1" },
      permissions: { allow: ["Read", "Bash(npm test:*)", "WebFetch"] },
    });
  });

  it("leaves a settings file that is not a JSON object alone", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-allow-"));
    mkdirSync(join(cwd, ".gyre"));
    writeFileSync(join(cwd, ".gyre", "settings.local.json"), "[1]");
    await expect(persistAllowRules(cwd, ["Bash(ls)"])).rejects.toMatchObject({ code: "config_error" });
    expect(readFileSync(join(cwd, ".gyre", "settings.local.json"), "utf8")).toBe("[1]");
  });
});

describe("prompt history", () => {
  it("keeps each project's prompts apart, outside the project, across restarts", async () => {
    const home = mkdtempSync(join(tmpdir(), "gyre-history-"));
    const env = { GYRE_HOME: home };
    const first = new PromptHistory("/projects/a", env);
    await first.load();
    await first.add("fix the test");
    await first.add("fix the test");
    await first.add("multi\nline");
    const again = new PromptHistory("/projects/a", env);
    await again.load();
    expect(again.entries).toEqual(["fix the test", "multi\nline"]);
    const other = new PromptHistory("/projects/b", env);
    await other.load();
    expect(other.entries).toEqual([]);
  });
});
