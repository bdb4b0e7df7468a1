import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SideEffect } from "../tools/index.js";
import type { PermissionMode } from "./mode.js";
import { PermissionPolicy, type PermissionPolicyOptions } from "./policy.js";
import { loadShellParser } from "./shell/parser.js";

let root: string;
let ws: string;
let outside: string;
let home: string;

beforeAll(async () => {
  await loadShellParser();
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-perm-")));
  ws = path.join(root, "ws");
  outside = path.join(root, "outside");
  home = path.join(root, "home");
  for (const dir of [ws, path.join(ws, "src"), outside, home, path.join(root, "extra")]) mkdirSync(dir);
  writeFileSync(path.join(ws, "src", "a.ts"), "");
  writeFileSync(path.join(outside, "secret.txt"), "");
  symlinkSync(outside, path.join(ws, "link-out"));
  symlinkSync(path.join(outside, "new-file.txt"), path.join(ws, "dangling"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function policy(options: Partial<PermissionPolicyOptions> = {}): PermissionPolicy {
  return new PermissionPolicy({ cwd: ws, home, ...options });
}

const SIDE_EFFECTS: Record<string, SideEffect> = {
  Read: "read-only",
  Glob: "read-only",
  Grep: "read-only",
  Write: "mutating",
  Edit: "mutating",
  MultiEdit: "mutating",
  NotebookEdit: "mutating",
  Bash: "mutating",
  WebFetch: "network",
  TodoWrite: "none",
  mcp__db__query: "mutating",
};

function call(p: PermissionPolicy, toolName: string, input: Record<string, unknown>, sideEffect?: SideEffect) {
  return p.evaluate({
    toolName,
    input,
    sideEffect: sideEffect ?? SIDE_EFFECTS[toolName] ?? "mutating",
    cwd: ws,
  });
}

const bash = (command: string) => ["Bash", { command }] as const;

describe("modes × tool kinds (no rules)", () => {
  const inside = () => path.join(ws, "src", "a.ts");
  const cases: Array<[string, () => readonly [string, Record<string, unknown>], Record<PermissionMode, string>]> = [
    [
      "Read inside",
      () => ["Read", { file_path: inside() }],
      { default: "allow", acceptEdits: "allow", plan: "allow", bypassPermissions: "allow", dontAsk: "allow" },
    ],
    [
      "Read outside",
      () => ["Read", { file_path: path.join(outside, "secret.txt") }],
      { default: "ask", acceptEdits: "ask", plan: "ask", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "Grep (cwd)",
      () => ["Grep", { pattern: "x" }],
      { default: "allow", acceptEdits: "allow", plan: "allow", bypassPermissions: "allow", dontAsk: "allow" },
    ],
    [
      "Edit inside",
      () => ["Edit", { file_path: inside(), old_string: "a", new_string: "b" }],
      { default: "ask", acceptEdits: "allow", plan: "deny", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "Write inside (relative path)",
      () => ["Write", { file_path: "src/new.ts", content: "" }],
      { default: "ask", acceptEdits: "allow", plan: "deny", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "NotebookEdit inside",
      () => ["NotebookEdit", { notebook_path: path.join(ws, "n.ipynb"), new_source: "" }],
      { default: "ask", acceptEdits: "allow", plan: "deny", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "Write outside",
      () => ["Write", { file_path: path.join(outside, "x.txt"), content: "" }],
      { default: "ask", acceptEdits: "ask", plan: "deny", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "Bash",
      () => bash("ls"),
      { default: "ask", acceptEdits: "ask", plan: "deny", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "WebFetch",
      () => ["WebFetch", { url: "https://example.com", prompt: "x" }],
      // Reading the web is research: plan mode lets it through to the rules, as Claude Code does.
      { default: "ask", acceptEdits: "ask", plan: "ask", bypassPermissions: "allow", dontAsk: "deny" },
    ],
    [
      "TodoWrite (no side effect)",
      () => ["TodoWrite", { todos: [] }],
      { default: "allow", acceptEdits: "allow", plan: "allow", bypassPermissions: "allow", dontAsk: "allow" },
    ],
    [
      "MCP tool",
      () => ["mcp__db__query", { sql: "select 1" }],
      { default: "ask", acceptEdits: "ask", plan: "deny", bypassPermissions: "allow", dontAsk: "deny" },
    ],
  ];
  const modes: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"];
  for (const [name, make, expected] of cases) {
    for (const mode of modes) {
      it(`${name} in ${mode} → ${expected[mode]}`, () => {
        const [tool, input] = make();
        expect(call(policy({ mode }), tool, input).behavior).toBe(expected[mode]);
      });
    }
  }

  it("says plan mode when denying in plan mode", () => {
    const decision = call(policy({ mode: "plan" }), ...bash("rm -rf build"));
    expect(decision).toMatchObject({ behavior: "deny", message: expect.stringContaining("plan mode") });
  });

  it("setMode changes the outcome", () => {
    const p = policy();
    const edit = ["Edit", { file_path: path.join(ws, "src", "a.ts") }] as const;
    expect(call(p, ...edit).behavior).toBe("ask");
    p.setMode("acceptEdits");
    expect(p.mode).toBe("acceptEdits");
    expect(call(p, ...edit).behavior).toBe("allow");
  });
});

describe("precedence", () => {
  it("deny beats ask beats allow", () => {
    const p = policy({
      allow: ["Bash(git:*)"],
      ask: ["Bash(git push:*)"],
      deny: ["Bash(git push --force:*)"],
    });
    expect(call(p, ...bash("git status")).behavior).toBe("allow");
    expect(call(p, ...bash("git push origin main")).behavior).toBe("ask");
    expect(call(p, ...bash("git push --force origin main")).behavior).toBe("deny");
  });

  it("deny rules hold in bypassPermissions mode, and so do ask rules", () => {
    const p = policy({ mode: "bypassPermissions", deny: ["Bash(rm:*)"], ask: ["WebFetch"] });
    expect(call(p, ...bash("rm -rf /")).behavior).toBe("deny");
    expect(call(p, "WebFetch", { url: "https://a.com" }).behavior).toBe("ask");
    expect(call(p, ...bash("make")).behavior).toBe("allow");
  });

  it("ask rules deny in dontAsk mode, naming the rule", () => {
    const decision = call(policy({ mode: "dontAsk", ask: ["Bash(npm publish:*)"] }), ...bash("npm publish"));
    expect(decision).toMatchObject({
      behavior: "deny",
      rule: { rule: "Bash(npm publish:*)", behavior: "ask" },
    });
  });

  it("allow rules let calls through in dontAsk mode", () => {
    expect(call(policy({ mode: "dontAsk", allow: ["Bash(make:*)"] }), ...bash("make all")).behavior).toBe("allow");
  });

  it("plan mode denies mutating tools even when allowed", () => {
    expect(call(policy({ mode: "plan", allow: ["Bash(make:*)"] }), ...bash("make")).behavior).toBe("deny");
  });

  it("deny messages name the rule and its settings file", () => {
    const p = policy({ deny: [{ rule: "Read(./.env)", source: "/proj/.claude/settings.json" }] });
    const decision = call(p, "Read", { file_path: path.join(ws, ".env") });
    expect(decision).toMatchObject({
      behavior: "deny",
      rule: { rule: "Read(./.env)", behavior: "deny", source: "/proj/.claude/settings.json" },
    });
    if (decision.behavior === "deny") expect(decision.message).toContain("/proj/.claude/settings.json");
  });
});

describe("Bash rules and compound commands", () => {
  const allowTest = { allow: ["Bash(npm test:*)", "Bash(git status)", "Bash(echo:*)", "Bash(cat:*)"] };
  const withCd = { allow: [...allowTest.allow, "Bash(cd:*)"] };
  it.each([
    ["cd /etc && echo x > passwd", "ask"],
    ["cd src && echo x > /dev/null", "allow"],
    ["cd src && echo x > WS/out", "allow"],
  ])("with cd allowed: %j → %s", (command, expected) => {
    expect(call(policy(withCd), ...bash(command.replace("WS", ws))).behavior).toBe(expected);
  });
  it.each([
    ["npm test", "allow"],
    ["npm test -- --watch", "allow"],
    ["npm testx", "ask"],
    ["npm test && rm -rf ~", "ask"],
    ["npm test || rm -rf ~", "ask"],
    ["npm test; rm -rf ~", "ask"],
    ["npm test | rm -rf ~", "ask"],
    ["npm test & rm -rf ~", "ask"],
    ["npm test\nrm -rf ~", "ask"],
    ["npm test $(rm -rf ~)", "ask"],
    ["npm test `rm -rf ~`", "ask"],
    ["(rm -rf ~)", "ask"],
    ["npm test && git status", "allow"],
    ["npm test | cat", "allow"],
    ['echo "a && rm -rf ~"', "allow"],
    ["echo 'a; rm -rf ~'", "allow"],
    ["echo $(git status)", "ask"],
    ["cat <<'EOF'\nrm -rf ~\nEOF", "allow"],
    ["cat <<EOF\n$(rm -rf ~)\nEOF", "ask"],
    ["echo x > /etc/passwd", "ask"],
    ["echo x > out.txt", "allow"],
    ["npm test > /dev/null 2>&1", "allow"],
    ["echo x > $TARGET", "ask"],
    ["echo x > link-out/y", "ask"],
    ["cd /etc && echo x > passwd", "ask"],
    ["cd src && echo x > /dev/null", "ask"],
    ["NODE_OPTIONS=--require=evil.js npm test", "ask"],
    ["$CMD test", "ask"],
    ["echo 'unterminated", "ask"],
    ["case x in a) echo;; esac", "ask"],
  ])("%j → %s", (command, expected) => {
    expect(call(policy(allowTest), ...bash(command)).behavior).toBe(expected);
  });

  it.each([
    ["npm test && rm -rf ~"],
    ["echo $(rm -rf ~)"],
    ["FOO=1 rm -rf ~"],
    ["env FOO=1 rm -rf ~"],
    ["sudo rm -rf ~"],
    ["command rm -rf ~"],
    ["'rm' -rf ~"],
    ["if true; then rm -rf ~; fi"],
    ["rm -rf ~ 'unterminated"],
  ])("deny Bash(rm:*) catches %j", (command) => {
    expect(call(policy({ deny: ["Bash(rm:*)"], mode: "bypassPermissions" }), ...bash(command)).behavior).toBe("deny");
  });

  it("Edit deny rules catch output redirections", () => {
    const p = policy({ deny: ["Edit(//etc/**)"], mode: "bypassPermissions" });
    expect(call(p, ...bash("echo x > /etc/passwd")).behavior).toBe("deny");
    expect(call(p, ...bash("echo x > /tmp/fine")).behavior).toBe("allow");
  });

  it("bare Bash allow covers any parseable command, never an unparseable one", () => {
    const p = policy({ allow: ["Bash"] });
    expect(call(p, ...bash("a && b | c")).behavior).toBe("allow");
    expect(call(p, ...bash("echo 'x")).behavior).toBe("ask");
  });

  it("bare Bash deny denies every command", () => {
    expect(call(policy({ deny: ["Bash"] }), ...bash("ls")).behavior).toBe("deny");
  });

  it("suggests exact rules for the parts that were not allowed", () => {
    const decision = call(policy(allowTest), ...bash("npm test && make build"));
    expect(decision).toMatchObject({
      behavior: "ask",
      suggestions: [
        {
          type: "addRules",
          rules: [{ toolName: "Bash", ruleContent: "make build" }],
          behavior: "allow",
          destination: "session",
        },
      ],
    });
  });

  it("applying a suggestion allows the command next time", () => {
    const p = policy(allowTest);
    const decision = call(p, ...bash("make build"));
    if (decision.behavior !== "ask") throw new Error("expected ask");
    for (const update of decision.suggestions ?? []) p.applyUpdate(update);
    expect(call(p, ...bash("make build")).behavior).toBe("allow");
  });
});

describe("path rules", () => {
  it.each([
    ["Read(./src/**)", "src/a.ts", true],
    ["Read(src/**)", "src/a.ts", true],
    ["Read(/src/**)", "src/a.ts", true],
    ["Read(./src/**)", "other/a.ts", false],
    ["Read(*.env)", ".env", true],
    ["Read(*.env)", "deep/dir/prod.env", true],
    ["Read(./.env)", "deep/.env", false],
    ["Read(./.env)", ".env", true],
    ["Read(src)", "src/a.ts", true],
    ["Read(**/secrets/*)", "a/secrets/k", true],
  ])("deny %s matches %s: %s", (rule, file, expected) => {
    const decision = call(policy({ deny: [rule] }), "Read", { file_path: path.join(ws, file) });
    expect(decision.behavior === "deny").toBe(expected);
  });

  it("anchors // at the filesystem root and ~/ at home", () => {
    const p = policy({ deny: [`Read(/${outside}/**)`, "Read(~/.ssh/**)"] });
    expect(call(p, "Read", { file_path: path.join(outside, "secret.txt") }).behavior).toBe("deny");
    expect(call(p, "Read", { file_path: path.join(home, ".ssh", "id_rsa") }).behavior).toBe("deny");
    expect(call(p, "Read", { file_path: path.join(ws, ".ssh", "id_rsa") }).behavior).toBe("allow");
  });

  it("resolves /path against the rule's settings root", () => {
    const p = policy({
      deny: [{ rule: "Edit(/config/**)", root: path.join(root, "extra") }],
      mode: "acceptEdits",
    });
    expect(call(p, "Edit", { file_path: path.join(root, "extra", "config", "x") }).behavior).toBe("deny");
    expect(call(p, "Edit", { file_path: path.join(ws, "config", "x") }).behavior).toBe("allow");
  });

  it("Edit rules cover Write, MultiEdit and NotebookEdit; Read rules cover Grep and Glob", () => {
    const p = policy({ deny: ["Edit(./src/**)", "Read(./src/**)"], mode: "acceptEdits" });
    for (const tool of ["Write", "Edit", "MultiEdit"]) {
      expect(call(p, tool, { file_path: path.join(ws, "src", "a.ts") }).behavior).toBe("deny");
    }
    expect(call(p, "NotebookEdit", { notebook_path: path.join(ws, "src", "n.ipynb") }).behavior).toBe("deny");
    expect(call(p, "Grep", { pattern: "x", path: path.join(ws, "src") }).behavior).toBe("deny");
    expect(call(p, "Glob", { pattern: "*", path: "src" }).behavior).toBe("deny");
  });

  it("resolves .. before matching", () => {
    const p = policy({ deny: ["Read(./src/**)"] });
    expect(call(p, "Read", { file_path: path.join(ws, "other", "..", "src", "a.ts") }).behavior).toBe("deny");
    expect(call(p, "Read", { file_path: "src/../../outside/secret.txt" }).behavior).toBe("ask");
  });

  it("a deny rule catches a symlink to its target; an allow rule needs the real path", () => {
    const deny = policy({ deny: [`Read(/${outside}/**)`] });
    expect(call(deny, "Read", { file_path: path.join(ws, "link-out", "secret.txt") }).behavior).toBe("deny");
    const allow = policy({ allow: ["Edit(./**)"] });
    expect(call(allow, "Edit", { file_path: path.join(ws, "src", "a.ts") }).behavior).toBe("allow");
    expect(call(allow, "Edit", { file_path: path.join(ws, "link-out", "secret.txt") }).behavior).toBe("ask");
  });
});

describe("workspace boundary", () => {
  it("asks for writes outside the workspace even in acceptEdits, suggesting the directory", () => {
    const decision = call(policy({ mode: "acceptEdits", allow: ["Edit"] }), "Write", {
      file_path: path.join(outside, "x.txt"),
    });
    expect(decision).toMatchObject({
      behavior: "ask",
      suggestions: [{ type: "addDirectories", directories: [outside], destination: "session" }],
    });
  });

  it("follows symlinked directories and dangling symlinks", () => {
    const p = policy({ mode: "acceptEdits" });
    expect(call(p, "Write", { file_path: path.join(ws, "link-out", "x.txt") }).behavior).toBe("ask");
    expect(call(p, "Write", { file_path: path.join(ws, "dangling") }).behavior).toBe("ask");
    expect(call(p, "Write", { file_path: path.join(ws, "src", "new", "deep.ts") }).behavior).toBe("allow");
  });

  it("treats additional directories as workspace", () => {
    const p = policy({ mode: "acceptEdits", additionalDirectories: ["../extra"] });
    expect(call(p, "Write", { file_path: path.join(root, "extra", "x.txt") }).behavior).toBe("allow");
    expect(p.directories).toEqual([ws, path.join(root, "extra")]);
  });

  it("a path-scoped allow rule grants writes outside the workspace", () => {
    const p = policy({ allow: [`Edit(/${outside}/**)`] });
    expect(call(p, "Write", { file_path: path.join(outside, "x.txt") }).behavior).toBe("allow");
  });

  it("applying an addDirectories suggestion widens the workspace", () => {
    const p = policy({ mode: "acceptEdits" });
    const decision = call(p, "Write", { file_path: path.join(outside, "x.txt") });
    if (decision.behavior !== "ask") throw new Error("expected ask");
    p.applyUpdate(decision.suggestions![0]!);
    expect(call(p, "Write", { file_path: path.join(outside, "x.txt") }).behavior).toBe("allow");
  });
});

describe("other rule kinds", () => {
  it("matches WebFetch domains", () => {
    const p = policy({ allow: ["WebFetch(domain:example.com)", "WebFetch(domain:*.docs.dev)"] });
    const fetch = (url: string) => call(p, "WebFetch", { url, prompt: "x" }).behavior;
    expect(fetch("https://example.com/a")).toBe("allow");
    expect(fetch("https://evil-example.com/a")).toBe("ask");
    expect(fetch("https://api.docs.dev/")).toBe("allow");
    expect(fetch("not a url")).toBe("ask");
  });

  it("in plan mode, WebFetch goes by its rules: a domain allowed runs, a domain denied is refused, others are asked", () => {
    const p = policy({ mode: "plan", allow: ["WebFetch(domain:example.com)"], deny: ["WebFetch(domain:evil.dev)"] });
    const fetch = (url: string) => call(p, "WebFetch", { url, prompt: "x" }).behavior;
    expect(fetch("https://example.com/a")).toBe("allow");
    expect(fetch("https://evil.dev/")).toBe("deny");
    expect(fetch("https://other.dev/")).toBe("ask");
    // Only the network tools: any other kind of call with a side effect stays refused while planning.
    expect(call(p, "mcp__web__post", { url: "https://example.com" }).behavior).toBe("deny");
  });

  it("matches MCP servers and tools", () => {
    const p = policy({ allow: ["mcp__db"], deny: ["mcp__db__drop"] });
    expect(call(p, "mcp__db__query", {}).behavior).toBe("allow");
    expect(call(p, "mcp__db__drop", {}).behavior).toBe("deny");
    expect(call(p, "mcp__other__query", {}).behavior).toBe("ask");
  });

  it("matches Task rules on the subagent type", () => {
    const p = policy({ deny: ["Task(general-purpose)"] });
    expect(call(p, "Task", { subagent_type: "general-purpose" }).behavior).toBe("deny");
    expect(call(p, "Task", { subagent_type: "Explore" }).behavior).toBe("ask");
  });

  it("matches Skill rules on the skill's name, or a prefix with :* or a space and *", () => {
    const p = policy({ deny: ["Skill(pdf)", "Skill(kit:*)"] });
    expect(call(p, "Skill", { skill: "pdf" }).behavior).toBe("deny");
    expect(call(p, "Skill", { skill: "/pdf" }).behavior).toBe("deny");
    expect(call(p, "Skill", { skill: "kit:lint" }).behavior).toBe("deny");
    expect(call(p, "Skill", { skill: "pdf-forms" }).behavior).not.toBe("deny");
    expect(call(p, "Skill", { skill: "kitchen" }).behavior).not.toBe("deny");
  });

  it("ignores malformed rules with a warning naming the source", () => {
    const p = policy({ deny: [{ rule: "Bash(rm -rf", source: "/s.json" }], allow: ["Bash(ls)"] });
    expect(p.warnings).toEqual([
      {
        rule: "Bash(rm -rf",
        behavior: "deny",
        source: "/s.json",
        message: expect.stringContaining("closing"),
      },
    ]);
    expect(call(p, ...bash("ls")).behavior).toBe("allow");
  });
});

describe("fromSettings", () => {
  it("merges settings rules with option rules; options' mode wins over defaultMode", () => {
    const settings = {
      permissions: {
        allow: [{ rule: "Bash(make:*)", source: "/p/.claude/settings.json", root: "/p" }],
        deny: [],
        ask: [],
        defaultMode: "plan" as const,
        additionalDirectories: [path.join(root, "extra")],
      },
    };
    const fromSettings = PermissionPolicy.fromSettings(settings, {
      cwd: ws,
      home,
      deny: ["Bash(make clean)"],
    });
    expect(fromSettings.mode).toBe("plan");
    fromSettings.setMode("default");
    expect(call(fromSettings, ...bash("make all"))).toMatchObject({
      behavior: "allow",
      rule: { source: "/p/.claude/settings.json" },
    });
    expect(call(fromSettings, ...bash("make clean")).behavior).toBe("deny");
    expect(PermissionPolicy.fromSettings(settings, { cwd: ws, mode: "dontAsk" }).mode).toBe("dontAsk");
  });
});

describe("protected paths", () => {
  const bareBash = { allow: ["Bash"] };
  it.each([
    ["echo x > .gyre/settings.json", "ask"],
    ["echo x >> .git/config", "ask"],
    ["echo x > ./.claude/settings.local.json", "ask"],
    ["echo '{}' > .mcp.json", "ask"],
    ["git config core.fsmonitor 'touch p'", "ask"],
    ["git -C sub config --add core.hooksPath h", "ask"],
    ["git config --get user.name", "allow"],
    ["rm -rf .git", "ask"],
    ["ln -s .git g2", "ask"],
    ["sed -i s/a/b/ .gi?/config", "ask"],
    ["cp evil --target-directory=.git/hooks", "ask"],
    ['cp evil "$d/config"', "ask"],
    ["cat .git/config", "allow"],
    ["ls -la .git", "allow"],
    ['git commit -m "$(cat msg.txt)"', "allow"],
    ["cp a b", "allow"],
    ["rm -rf *", "allow"],
  ])("with Bash allowed, %j → %s", (command, expected) => {
    expect(call(policy(bareBash), ...bash(command)).behavior).toBe(expected);
  });

  it("a symlink into .git is followed", () => {
    mkdirSync(path.join(ws, ".git"), { recursive: true });
    symlinkSync(path.join(ws, ".git"), path.join(ws, "gitlink"));
    expect(call(policy(bareBash), ...bash("cp evil gitlink/config")).behavior).toBe("ask");
    expect(call(policy(bareBash), ...bash("echo x > gitlink/config")).behavior).toBe("ask");
  });

  it("bypassPermissions writes them without asking; other modes and rules never do", () => {
    expect(call(policy({ mode: "bypassPermissions" }), ...bash("echo x > .git/config")).behavior).toBe("allow");
    const write = ["Write", { file_path: path.join(ws, ".claude", "settings.json"), content: "{}" }] as const;
    expect(call(policy({ mode: "bypassPermissions" }), ...write).behavior).toBe("allow");
    expect(call(policy({ mode: "acceptEdits" }), ...write).behavior).toBe("ask");
    expect(call(policy({ allow: ["Write"] }), ...write).behavior).toBe("ask");
    expect(call(policy({ mode: "dontAsk", allow: ["Edit"] }), ...write).behavior).toBe("deny");
  });
});

describe("mayRead: one check per file a tool opens or lists", () => {
  const deny = ["Read(./.env)", "Read(./sub/**)", "Grep(*.log)"];

  it("refuses files and folders a Read deny or ask rule covers, as written or through a link", () => {
    const p = policy({ deny, ask: ["Read(./private/**)"] });
    expect(p.mayRead(path.join(ws, ".env"))).toBe(false);
    expect(p.mayRead(path.join(ws, "sub", "deep", "key.txt"))).toBe(false);
    // The folder itself: everything in it is denied, so a listing leaves it out.
    expect(p.mayRead(path.join(ws, "sub"))).toBe(false);
    expect(p.mayRead(path.join(ws, "private", "notes.md"))).toBe(false);
    expect(p.mayRead(path.join(ws, "src", "a.ts"))).toBe(true);
    expect(p.mayRead(path.join(ws, "subway.txt"))).toBe(true);
    // Relative to the workspace, as rules are.
    expect(p.mayRead(".env")).toBe(false);
  });

  it("applies a rule for another tool of the family only to that tool", () => {
    const p = policy({ deny });
    expect(p.mayRead(path.join(ws, "build.log"), "Grep")).toBe(false);
    expect(p.mayRead(path.join(ws, "build.log"), "Read")).toBe(true);
    expect(p.mayRead(path.join(ws, ".env"), "Glob")).toBe(false);
  });

  it("takes the real path a caller resolved instead of looking it up, and needs none without rules", () => {
    const p = policy({ deny: [`Read(/${outside}/secret.txt)`] });
    // As a search passes them: the path as found, and its real path from its folder's.
    const real = path.join(outside, "secret.txt");
    expect(p.mayRead(path.join(ws, "elsewhere.txt"), "Grep", { real, isFile: true })).toBe(false);
    expect(p.mayRead(path.join(ws, "elsewhere.txt"), "Grep", { real: path.join(ws, "elsewhere.txt") })).toBe(true);
    expect(policy({ deny: ["Bash(rm:*)", "Edit(./x)"] }).mayRead(path.join(ws, "x"))).toBe(true);
  });

  it("sees rules added, removed or replaced after a check, also through a narrowed view", () => {
    const p = policy({ deny: ["Read(./.env)"] });
    const view = p.narrowedTo("plan");
    const key = path.join(ws, "key.pem");
    expect(view.mayRead(key)).toBe(true);
    p.applyUpdate({
      type: "addRules",
      behavior: "deny",
      destination: "session",
      rules: [{ toolName: "Read", ruleContent: "*.pem" }],
    });
    expect(view.mayRead(key)).toBe(false);
    expect(p.mayRead(path.join(ws, ".env"))).toBe(false);
    p.applyUpdate({
      type: "removeRules",
      behavior: "deny",
      destination: "session",
      rules: [{ toolName: "Read", ruleContent: "*.pem" }],
    });
    expect(view.mayRead(key)).toBe(true);
    p.applyUpdate({
      type: "replaceRules",
      behavior: "deny",
      destination: "session",
      rules: [{ toolName: "Read", ruleContent: "key.pem" }],
    });
    expect(p.mayRead(key)).toBe(false);
    expect(p.mayRead(path.join(ws, ".env"))).toBe(true);
  });

  it("merges rules of one base without letting a negated one undo the others", () => {
    const p = policy({ deny: ["Read(./.env)", "Read(*.pem)", "Read(!*.pem)", "Read(./sub/**)"] });
    expect(p.mayRead(path.join(ws, ".env"))).toBe(false);
    expect(p.mayRead(path.join(ws, "a", "b.pem"))).toBe(false);
    expect(p.mayRead(path.join(ws, "sub", "x"))).toBe(false);
    expect(p.mayRead(path.join(ws, "x"))).toBe(true);
  });

  it("judges a path known to be a file as a file: a folder rule does not hide a file of that name", () => {
    const p = policy({ deny: ["Read(./build/**)"] });
    const build = path.join(ws, "build");
    expect(p.mayRead(build)).toBe(false); // may be the folder
    expect(p.mayRead(build, "Read", { real: build, isFile: true })).toBe(true);
    expect(p.mayRead(path.join(build, "out.js"), "Read", { real: path.join(build, "out.js"), isFile: true })).toBe(
      false,
    );
  });

  it("follows links: a link to a denied file is denied, a link out to a denied real path too", () => {
    const p = policy({ deny: [`Read(/${outside}/secret.txt)`] });
    expect(p.mayRead(path.join(ws, "link-out", "secret.txt"))).toBe(false);
    expect(p.mayRead(path.join(outside, "secret.txt"))).toBe(false);
  });
});

describe("decisions carry the real path they judged", () => {
  it("for file tools, as resolved through links; none for other tools or for a deny", () => {
    const p = policy({ mode: "bypassPermissions", deny: ["Read(./.env)"] });
    const file = path.join(ws, "link-out", "secret.txt");
    expect(call(p, "Read", { file_path: file })).toMatchObject({
      behavior: "allow",
      path: path.join(outside, "secret.txt"),
    });
    expect(call(p, "Grep", { pattern: "x" })).toMatchObject({ behavior: "allow", path: ws });
    expect(call(p, "Bash", { command: "ls" })).not.toHaveProperty("path");
    expect(call(p, "Read", { file_path: path.join(ws, ".env") })).not.toHaveProperty("path");
  });
});

describe("reads of other processes' state in /proc (issue 26, finding 5)", () => {
  const readers = { allow: ["Bash(grep:*)", "Bash(cat:*)", "Bash(cd:*)", "Bash(ls:*)", "Read", "Grep", "Glob"] };

  it.each([
    "grep -a -o ANTHROPIC_API_KEY=.\\{20\\} /proc/[0-9]*/environ",
    "cat /proc/1/environ",
    "cat /proc/self/environ",
    "cat /proc/thread-self/environ",
    "cat /proc/1/task/1/environ",
    "cat /proc/1/mem",
    "cat /proc/1/cmdline",
    "ls /proc/1/fd/",
    "cat /proc/1/root/etc/passwd",
    "cat /proc/1/cwd/.env",
    "cat /proc/self/../1/environ",
    "cat //proc//1/environ",
    "cat /proc/./1/environ",
    "cat /proc/*/environ",
    "cat /*/1/environ",
    "cat /p?oc/1/environ",
    "cat '/proc/1/environ'",
    "cat ../../../../../../../../proc/1/environ",
    "cat ~/../../../../../../../proc/1/environ",
    "grep -r KEY /proc",
    "grep -ra KEY /",
    "grep --file=/proc/1/environ x",
    "grep -f/proc/1/environ x",
    "grep KEY < /proc/1/environ",
    "cd /proc && cat 1/environ",
    "cd / && cat proc/1/environ",
    "cd - && cat proc/1/environ",
    "cd .. && cd .. && cd .. && cd .. && cd .. && cd .. && cd .. && cat proc/1/environ",
    "cat /dev/fd/0",
    "cat /proc/$PPID/environ",
  ])("under allow rules, %j asks", (command) => {
    expect(call(policy(readers), ...bash(command)).behavior).toBe("ask");
  });

  it.each(["cat /proc/cpuinfo", "grep MemTotal /proc/meminfo", "cat src/a.ts", "grep -r x .", "cd src && cat a.ts"])(
    "under allow rules, %j is still allowed",
    (command) => {
      expect(call(policy(readers), ...bash(command)).behavior).toBe("allow");
    },
  );

  it("follows a symlink in the workspace into /proc", () => {
    symlinkSync("/proc/1", path.join(ws, "proc-link"));
    expect(call(policy(readers), ...bash("cat proc-link/environ")).behavior).toBe("ask");
    expect(call(policy(readers), "Read", { file_path: path.join(ws, "proc-link", "environ") }).behavior).toBe("ask");
  });

  it("Read, Grep and Glob ask for them too, whatever the allow rules; bypassPermissions does not ask", () => {
    for (const [tool, input] of [
      ["Read", { file_path: "/proc/1/environ" }],
      ["Read", { file_path: "/proc/self/mem" }],
      ["Grep", { pattern: "KEY", path: "/proc" }],
      ["Grep", { pattern: "KEY", path: "/" }],
      ["Glob", { pattern: "/proc/*/environ" }],
      ["Glob", { pattern: "proc/*/environ", path: "/" }],
    ] as const) {
      expect(call(policy(readers), tool, input).behavior, `${tool} ${JSON.stringify(input)}`).toBe("ask");
      expect(call(policy({ mode: "bypassPermissions" }), tool, input).behavior).toBe("allow");
    }
    expect(call(policy(readers), "Read", { file_path: "/proc/cpuinfo" }).behavior).toBe("allow");
  });
});
