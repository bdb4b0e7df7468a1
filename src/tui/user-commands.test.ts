import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { helpText, parseSlashCommand } from "./slash-commands.js";
import { loadPlugins } from "../plugins/index.js";
import { expandCommand, loadPluginCommands, loadUserCommands, parseUserCommand } from "../commands/index.js";

function write(root: string, file: string, text: string): void {
  mkdirSync(join(root, file, ".."), { recursive: true });
  writeFileSync(join(root, file), text);
}

describe("user slash commands", () => {
  it("reads Claude Code's front matter, and takes the body's first line when there is no description", () => {
    const where = { name: "review", file: "/x/review.md", scope: "project" as const };
    const command = parseUserCommand(
      "---\ndescription: Review a file\nargument-hint: [file] [focus]\nmodel: anthropic/claude-haiku-4-5\nallowed-tools: Bash(git diff:*), Read\n---\nReview $1 for $2.\n",
      where,
      parse,
    );
    expect(command).toMatchObject({
      description: "Review a file",
      argumentHint: "[file] [focus]",
      model: "anthropic/claude-haiku-4-5",
      allowedTools: ["Bash(git diff:*)", "Read"],
      body: "Review $1 for $2.",
    });
    expect(parseUserCommand("Fix the lint errors.\nThen run the tests.", where, parse)).toMatchObject({
      description: "Fix the lint errors.",
      body: "Fix the lint errors.\nThen run the tests.",
    });
    expect(() => parseUserCommand("---\n- a\n- b\n---\nbody", where, parse)).toThrow(/key: value/);
    // Not YAML (an unquoted `[x] [y]`), as many command files are: read line by line.
    expect(
      parseUserCommand("---\nargument-hint: [a] [b]\ndescription: 'Quoted: yes'\n---\nGo.", where, parse),
    ).toMatchObject({ argumentHint: "[a] [b]", description: "Quoted: yes", body: "Go." });
  });

  it("puts the arguments in: $ARGUMENTS whole, $1 $2 split (quotes group), appended when the body names none", () => {
    expect(expandCommand("Fix issue #$ARGUMENTS now", "42 fast")).toBe("Fix issue #42 fast now");
    expect(expandCommand("Review $1 for $2 ($3)", 'src/a.ts "memory leaks"')).toBe(
      "Review src/a.ts for memory leaks ()",
    );
    expect(expandCommand("Summarise the changes.", "in French")).toBe("Summarise the changes.\n\nin French");
    expect(expandCommand("Summarise the changes.", "")).toBe("Summarise the changes.");
    // `$` followed by something else, and replacement patterns in arguments, stay as they are.
    expect(expandCommand("Cost in $: $ARGUMENTS", "$& $1")).toBe("Cost in $: $& $1");
  });

  it("loads .claude and .gyre commands of home and project, subfolders as folder:name, later ones winning", async () => {
    const home = mkdtempSync(join(tmpdir(), "gyre-cmd-home-"));
    const cwd = mkdtempSync(join(tmpdir(), "gyre-cmd-project-"));
    write(home, ".claude/commands/hello.md", "Say hello from home.");
    write(home, ".claude/commands/mine.md", "Only in home.");
    write(cwd, ".claude/commands/hello.md", "Say hello from .claude.");
    write(cwd, ".gyre/commands/hello.md", "Say hello from .gyre.");
    write(cwd, ".claude/commands/frontend/component.md", "---\ndescription: A component\n---\nMake $1.");
    write(cwd, ".claude/commands/broken.md", "---\n- a list\n- not fields\n---\nbody");
    write(cwd, ".claude/commands/notes.txt", "not a command");
    const { commands, problems } = await loadUserCommands({ cwd, home });
    expect([...commands.keys()].sort()).toEqual(["frontend:component", "hello", "mine"]);
    expect(commands.get("hello")).toMatchObject({ body: "Say hello from .gyre.", scope: "project" });
    expect(commands.get("mine")).toMatchObject({ scope: "user" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("broken.md");

    // They are slash commands now, listed in /help; a built-in name stays built-in.
    expect(parseSlashCommand("/frontend:component Button", (name) => commands.has(name))).toEqual({
      name: "frontend:component",
      args: "Button",
    });
    expect(parseSlashCommand("/frontend:component Button")).toBeUndefined();
    expect(parseSlashCommand("/usr/bin is where?", (name) => commands.has(name))).toBeUndefined();
    const help = helpText(commands.values());
    expect(help).toMatch(/\/frontend:component\s+A component \(project\)/);
    expect(help).toMatch(/\/mine\s+Only in home\. \(user\)/);
  });

  it("loads a plugin's commands as plugin:name, from the plugin's folder in Claude Code's layout", async () => {
    const plugin = mkdtempSync(join(tmpdir(), "gyre-cmd-plugin-"));
    write(plugin, ".claude-plugin/plugin.json", JSON.stringify({ name: "kit" }));
    write(
      plugin,
      "commands/hello.md",
      "---\ndescription: Say hello\nargument-hint: [name]\n---\nSay hello to $ARGUMENTS.",
    );
    write(plugin, "commands/git/sync.md", "Sync the branch.");
    const plugins = await loadPlugins([{ type: "local", path: plugin }], { cwd: plugin });
    const { commands, problems } = await loadPluginCommands(plugins);
    expect(problems).toEqual([]);
    expect([...commands.keys()]).toEqual(["kit:git:sync", "kit:hello"]);
    expect(commands.get("kit:hello")).toMatchObject({ scope: "plugin", body: "Say hello to $ARGUMENTS." });
    expect(parseSlashCommand("/kit:hello Ada", (name) => commands.has(name))).toEqual({
      name: "kit:hello",
      args: "Ada",
    });
    expect(helpText(commands.values())).toMatch(/\/kit:hello\s+Say hello \[name\] \(plugin\)/);
  });

  it("finds nothing, and no problem, when there are no command folders", async () => {
    const empty = mkdtempSync(join(tmpdir(), "gyre-cmd-none-"));
    expect(await loadUserCommands({ cwd: empty, home: empty })).toEqual({ commands: new Map(), problems: [] });
  });
});
