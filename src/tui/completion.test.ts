import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applySuggestion, completionToken, suggestCommands, suggestPaths } from "./completion.js";
import { listProjectPaths, withFolders } from "./file-index.js";
import { commandEntries } from "./slash-commands.js";

describe("completion", () => {
  it("completes a /command at the start, and an @path wherever the cursor ends one", () => {
    expect(completionToken({ text: "/he", cursor: 3 })).toEqual({ kind: "command", start: 0, query: "he" });
    expect(completionToken({ text: "/help me", cursor: 8 })).toBeUndefined();
    expect(completionToken({ text: "look at @src/ma and", cursor: 15 })).toEqual({
      kind: "file",
      start: 8,
      query: "src/ma",
    });
    expect(completionToken({ text: "mail me@host", cursor: 12 })).toBeUndefined();
    expect(completionToken({ text: "plain", cursor: 5 })).toBeUndefined();
  });

  it("offers the run's skills after the commands, a command of the same name first", () => {
    const command = {
      name: "pdf",
      description: "Our pdf command",
      argumentHint: undefined,
      model: undefined,
      allowedTools: [],
      body: "",
      file: "",
      scope: "project" as const,
    };
    const entries = commandEntries([command], ["pdf", "kit:lint", "mcp"]);
    expect(suggestCommands("pd", entries).map((s) => s.value)).toEqual(["/pdf"]);
    expect(entries.filter((entry) => entry.name === "pdf")).toHaveLength(1);
    expect(suggestCommands("kit", entries)).toMatchObject([{ value: "/kit:lint" }]);
    expect(entries.find((entry) => entry.name === "kit:lint")?.description).toContain("skill");
    // A built-in command's name is never taken by a skill.
    expect(entries.filter((entry) => entry.name === "mcp")).toHaveLength(1);
  });

  it("offers commands by prefix, built-in first, and none once a whole name is typed", () => {
    const entries = commandEntries([
      {
        name: "frontend:component",
        description: "Make one",
        argumentHint: "[name]",
        model: undefined,
        allowedTools: [],
        body: "",
        file: "",
        scope: "project",
      },
    ]);
    expect(suggestCommands("c", entries).map((s) => s.value)).toEqual([
      "/clear",
      "/cost",
      "/compact",
      "/mcp",
      "/frontend:component",
    ]);
    expect(suggestCommands("front", entries)[0]).toEqual({
      value: "/frontend:component",
      label: "/frontend:component",
      detail: "Make one [name] (project)",
    });
    expect(suggestCommands("cost", entries)).toEqual([]);
  });

  it("offers paths by prefix, then by file name, shorter first; Tab puts the path in", () => {
    const paths = withFolders(["src/main.ts", "src/tui/app.tsx", "README.md", "docs/main.md"]);
    expect(paths.slice(0, 3)).toEqual(["docs/", "src/", "src/tui/"]);
    expect(suggestPaths("src", paths).map((s) => s.value)).toEqual([
      "@src/",
      "@src/tui/",
      "@src/main.ts",
      "@src/tui/app.tsx",
    ]);
    expect(suggestPaths("main", paths).map((s) => s.value)).toEqual(["@src/main.ts", "@docs/main.md"]);
    expect(suggestPaths("src/", paths).map((s) => s.value)).not.toContain("@src/");

    const state = { text: "read @src/m now", cursor: 11 };
    const token = completionToken(state);
    if (!token) throw new Error("no token");
    const file = applySuggestion(state, token, { value: "@src/main.ts", label: "", detail: "" });
    expect(file).toEqual({ text: "read @src/main.ts now", cursor: 17 });
    const folder = applySuggestion(
      { text: "@s", cursor: 2 },
      { kind: "file", start: 0, query: "s" },
      {
        value: "@src/",
        label: "",
        detail: "",
      },
    );
    expect(folder).toEqual({ text: "@src/", cursor: 5 });
    const command = applySuggestion(
      { text: "/he", cursor: 3 },
      { kind: "command", start: 0, query: "he" },
      {
        value: "/help",
        label: "",
        detail: "",
      },
    );
    expect(command).toEqual({ text: "/help ", cursor: 6 });
  });

  it("lists a project's files without what .gitignore ignores, with git and without", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-paths-"));
    mkdirSync(join(cwd, "src"));
    mkdirSync(join(cwd, "node_modules", "x"), { recursive: true });
    mkdirSync(join(cwd, "build"));
    writeFileSync(join(cwd, ".gitignore"), "build/\n*.log\n");
    writeFileSync(join(cwd, "src", "a.ts"), "");
    writeFileSync(join(cwd, "debug.log"), "");
    writeFileSync(join(cwd, "build", "out.js"), "");
    writeFileSync(join(cwd, "node_modules", "x", "index.js"), "");
    const expected = [".gitignore", "src/", "src/a.ts"];
    expect((await listProjectPaths(cwd)).sort()).toEqual(expected);
    execFileSync("git", ["init", "-q"], { cwd });
    writeFileSync(join(cwd, ".gitignore"), "build/\n*.log\nnode_modules/\n");
    expect((await listProjectPaths(cwd)).sort()).toEqual(expected);
  });
});
