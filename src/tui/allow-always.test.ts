import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GYRE_GITIGNORE, persistAllowRules, suggestedRules } from "./allow-always.js";
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

  it("leaves a settings file that is not a JSON object, or not JSON, alone", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-allow-"));
    mkdirSync(join(cwd, ".gyre"));
    for (const text of ["[1]", "{ not json"]) {
      writeFileSync(join(cwd, ".gyre", "settings.local.json"), text);
      await expect(persistAllowRules(cwd, ["Bash(ls)"])).rejects.toMatchObject({ code: "config_error" });
      expect(readFileSync(join(cwd, ".gyre", "settings.local.json"), "utf8")).toBe(text);
    }
  });

  it("writes .gyre/.gitignore once, with the file it creates; never over the person's own", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-allow-"));
    const gitignore = join(cwd, ".gyre", ".gitignore");
    await persistAllowRules(cwd, ["Bash(ls)"]);
    expect(readFileSync(gitignore, "utf8")).toBe(GYRE_GITIGNORE);
    expect(GYRE_GITIGNORE.split("\n")).toEqual(expect.arrayContaining(["settings.local.json", "sessions.db"]));
    // Removed by the person: the next rule added to the same file does not bring it back.
    rmSync(gitignore);
    await persistAllowRules(cwd, ["Bash(pwd)"]);
    expect(existsSync(gitignore)).toBe(false);
    // A folder with a .gitignore of its own keeps it.
    const other = mkdtempSync(join(tmpdir(), "gyre-allow-"));
    mkdirSync(join(other, ".gyre"));
    writeFileSync(join(other, ".gyre", ".gitignore"), "mine\n");
    await persistAllowRules(other, ["Bash(ls)"]);
    expect(readFileSync(join(other, ".gyre", ".gitignore"), "utf8")).toBe("mine\n");
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
