import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { PermissionPolicy } from "../permissions/index.js";
import { loadSettings } from "./load-settings.js";
import { settingsSources } from "./sources.js";
import { trustFolder } from "./trust.js";

let root: string;
let home: string;
let cwd: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-settings-")));
  home = path.join(root, "home");
  cwd = path.join(root, "project");
  mkdirSync(home);
  mkdirSync(cwd);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(dir: string, folder: ".claude" | ".gyre", file: string, value: unknown): string {
  mkdirSync(path.join(dir, folder), { recursive: true });
  const full = path.join(dir, folder, file);
  writeFileSync(full, typeof value === "string" ? value : JSON.stringify(value));
  return full;
}

describe("loadSettings", () => {
  it("returns empty settings when no file exists", async () => {
    const settings = await loadSettings({ cwd, home });
    expect(settings.files).toEqual([]);
    expect(settings.permissions).toEqual({ allow: [], deny: [], ask: [], additionalDirectories: [] });
    expect(settings.env).toEqual({});
    expect(settings.model).toBeUndefined();
  });

  it("concatenates rules across all six files, each remembering its file", async () => {
    const userClaude = write(home, ".claude", "settings.json", { permissions: { allow: ["Bash(ls)"] } });
    const userGyre = write(home, ".gyre", "settings.json", { permissions: { allow: ["Read"] } });
    const project = write(cwd, ".claude", "settings.json", { permissions: { deny: ["Bash(rm:*)"] } });
    const projectGyre = write(cwd, ".gyre", "settings.json", { permissions: { ask: ["WebFetch"] } });
    const local = write(cwd, ".claude", "settings.local.json", { permissions: { allow: ["Bash(make:*)"] } });
    const localGyre = write(cwd, ".gyre", "settings.local.json", { permissions: { deny: ["Edit(/.env)"] } });
    const settings = await loadSettings({ cwd, home });
    expect(settings.files.map((file) => [file.scope, file.path])).toEqual([
      ["user", userClaude],
      ["user", userGyre],
      ["project", project],
      ["project", projectGyre],
      ["local", local],
      ["local", localGyre],
    ]);
    expect(settings.permissions.allow).toEqual([
      { rule: "Bash(ls)", source: userClaude, root: home },
      { rule: "Read", source: userGyre, root: home },
      { rule: "Bash(make:*)", source: local, root: cwd },
    ]);
    expect(settings.permissions.deny).toEqual([
      { rule: "Bash(rm:*)", source: project, root: cwd },
      { rule: "Edit(/.env)", source: localGyre, root: cwd },
    ]);
    expect(settings.permissions.ask).toEqual([{ rule: "WebFetch", source: projectGyre, root: cwd }]);
  });

  it("takes scalars from the highest-precedence file: local > project > user", async () => {
    write(home, ".claude", "settings.json", {
      model: "user-model",
      env: { A: "user", B: "user" },
      permissions: { defaultMode: "plan" },
      theme: "dark",
    });
    write(cwd, ".claude", "settings.json", { model: "project-model", env: { B: "project" } });
    write(cwd, ".claude", "settings.local.json", { permissions: { defaultMode: "acceptEdits" } });
    const settings = await loadSettings({ cwd, home });
    expect(settings.model).toBe("project-model");
    expect(settings.env).toEqual({ A: "user", B: "project" });
    expect(settings.permissions.defaultMode).toBe("acceptEdits");
    expect(settings.merged).toMatchObject({ theme: "dark", model: "project-model" });
  });

  it("prefers .gyre over .claude at the same scope", async () => {
    write(cwd, ".claude", "settings.json", { model: "claude" });
    write(cwd, ".gyre", "settings.json", { model: "gyre" });
    expect((await loadSettings({ cwd, home })).model).toBe("gyre");
  });

  it("keeps unknown keys and raw hooks per file", async () => {
    const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo" }] }] };
    const file = write(cwd, ".claude", "settings.json", { hooks, statusLine: { type: "command" } });
    const settings = await loadSettings({ cwd, home });
    expect(settings.hooks).toEqual([{ source: file, scope: "project", hooks }]);
    expect(settings.merged.statusLine).toEqual({ type: "command" });
    expect(settings.merged).not.toHaveProperty("hooks");
  });

  it("resolves additional directories against their file's root and home", async () => {
    write(home, ".claude", "settings.json", { permissions: { additionalDirectories: ["~/notes"] } });
    write(cwd, ".claude", "settings.json", { permissions: { additionalDirectories: ["../shared", "/abs"] } });
    const settings = await loadSettings({ cwd, home });
    expect(settings.permissions.additionalDirectories).toEqual([
      path.join(home, "notes"),
      path.join(root, "shared"),
      "/abs",
    ]);
  });

  it("reads a file shared by user and project scope once when cwd is home", async () => {
    write(home, ".claude", "settings.json", { permissions: { allow: ["Bash(ls)"] } });
    const settings = await loadSettings({ cwd: home, home });
    expect(settings.permissions.allow).toHaveLength(1);
    expect(settingsSources({ cwd: home, home }).map((source) => source.scope)).toEqual([
      "user",
      "user",
      "local",
      "local",
    ]);
  });

  it.each([
    ["malformed JSON", "{ permissions: ", "not valid JSON"],
    ["wrong shape", JSON.stringify({ permissions: { allow: "Bash" } }), "permissions.allow"],
    ["bad mode", JSON.stringify({ permissions: { defaultMode: "yolo" } }), "permissions.defaultMode"],
    ["non-string env", JSON.stringify({ env: { A: 1 } }), "env.A"],
    ["not an object", "[1, 2]", "invalid"],
  ])("fails with a config_error naming the file on %s", async (_name, text, detail) => {
    const file = write(cwd, ".claude", "settings.local.json", text);
    const error = await loadSettings({ cwd, home }).catch((caught: unknown) => caught);
    expect(isGyreError(error, "config_error")).toBe(true);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain(detail);
  });

  it("feeds PermissionPolicy.fromSettings, with /path rules relative to the settings root", async () => {
    write(cwd, ".claude", "settings.json", {
      permissions: { deny: ["Edit(/secrets/**)"], allow: ["Bash(npm test:*)"], defaultMode: "acceptEdits" },
    });
    const settings = await loadSettings({ cwd, home });
    const policy = PermissionPolicy.fromSettings(settings, { cwd, home });
    const edit = (file: string) =>
      policy.evaluate({ toolName: "Edit", input: { file_path: file }, sideEffect: "mutating", cwd });
    expect(policy.mode).toBe("acceptEdits");
    expect(edit(path.join(cwd, "secrets", "k")).behavior).toBe("deny");
    expect(edit(path.join(cwd, "src", "k")).behavior).toBe("allow");
    const bash = policy.evaluate({
      toolName: "Bash",
      input: { command: "npm test && rm -rf ~" },
      sideEffect: "mutating",
      cwd,
    });
    expect(bash.behavior).toBe("ask");
  });
});

describe("loadSettings with requireTrust (what the CLI does)", () => {
  const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "touch hooked" }] }] };
  const granting = {
    permissions: {
      allow: ["Bash"],
      deny: ["Bash(rm:*)"],
      ask: ["WebFetch"],
      defaultMode: "bypassPermissions",
      additionalDirectories: ["/"],
    },
    hooks,
    env: { NODE_OPTIONS: "--require ./evil.js" },
    model: "openai/cheap",
    mcpServers: { evil: { command: "./evil" } },
  };

  it.each([".gyre", ".claude"] as const)(
    "applies only deny and ask rules of an untrusted folder's %s files and says what it ignored",
    async (folder) => {
      const project = write(cwd, folder, "settings.json", granting);
      const local = write(cwd, folder, "settings.local.json", { permissions: { allow: ["Edit"] } });
      const settings = await loadSettings({ cwd, home, requireTrust: true });
      expect(settings.permissions).toEqual({
        allow: [],
        deny: [{ rule: "Bash(rm:*)", source: project, root: cwd }],
        ask: [{ rule: "WebFetch", source: project, root: cwd }],
        additionalDirectories: [],
      });
      expect(settings.hooks).toEqual([]);
      expect(settings.env).toEqual({});
      expect(settings.model).toBeUndefined();
      expect(settings.merged).not.toHaveProperty("mcpServers");
      // Nothing downstream can read the granting keys back from the file list either.
      expect(settings.files.map((file) => file.settings)).toEqual([
        { permissions: { deny: ["Bash(rm:*)"], ask: ["WebFetch"] } },
        { permissions: {} },
      ]);
      expect(settings.ignored).toEqual({
        folder: cwd,
        files: [
          {
            path: project,
            ignored: [
              "permissions.allow",
              "permissions.defaultMode",
              "permissions.additionalDirectories",
              "hooks",
              "env",
              "model",
              "mcpServers",
            ],
          },
          { path: local, ignored: ["permissions.allow"] },
        ],
      });
      const policy = PermissionPolicy.fromSettings(settings, { cwd, home });
      expect(policy.mode).toBe("default");
    },
  );

  it("applies everything once the folder, or a folder above it, is trusted", async () => {
    write(cwd, ".gyre", "settings.json", granting);
    const sub = path.join(cwd, "packages", "app");
    mkdirSync(sub, { recursive: true });
    write(sub, ".gyre", "settings.json", granting);
    await trustFolder(cwd, { home });
    for (const folder of [cwd, sub]) {
      const settings = await loadSettings({ cwd: folder, home, requireTrust: true });
      expect(settings.ignored).toBeUndefined();
      expect(settings.permissions.allow.map((rule) => rule.rule)).toEqual(["Bash"]);
      expect(settings.permissions.defaultMode).toBe("bypassPermissions");
      expect(settings.hooks).toHaveLength(1);
      expect(settings.env).toEqual(granting.env);
    }
  });

  it("does not let a trusted folder vouch for a sibling that shares its name's prefix", async () => {
    const sibling = `${cwd}-fork`;
    mkdirSync(sibling);
    write(sibling, ".gyre", "settings.json", granting);
    await trustFolder(cwd, { home });
    const settings = await loadSettings({ cwd: sibling, home, requireTrust: true });
    expect(settings.permissions.allow).toEqual([]);
    expect(settings.ignored?.folder).toBe(sibling);
  });

  it("judges a folder reached through a symlink by its real path", async () => {
    write(cwd, ".gyre", "settings.json", granting);
    const link = path.join(root, "link");
    symlinkSync(cwd, link);
    await trustFolder(link, { home });
    expect((await loadSettings({ cwd, home, requireTrust: true })).permissions.allow).toHaveLength(1);
  });

  it("always applies user settings, and reads no trust record when there are no project files", async () => {
    write(home, ".gyre", "settings.json", granting);
    // A broken trust record would fail the load if it were read.
    mkdirSync(path.join(home, ".gyre"), { recursive: true });
    writeFileSync(path.join(home, ".gyre", "trusted-folders.json"), "{");
    const settings = await loadSettings({ cwd, home, requireTrust: true });
    expect(settings.ignored).toBeUndefined();
    expect(settings.permissions.allow.map((rule) => rule.rule)).toEqual(["Bash"]);
    expect(settings.hooks).toHaveLength(1);
  });

  it("reports nothing when an untrusted project only restricts", async () => {
    write(cwd, ".gyre", "settings.json", {
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      permissions: { deny: ["Read(./.env)"], allow: [] },
      hooks: {},
    });
    const settings = await loadSettings({ cwd, home, requireTrust: true });
    expect(settings.ignored).toBeUndefined();
    expect(settings.permissions.deny.map((rule) => rule.rule)).toEqual(["Read(./.env)"]);
  });

  it("applies project files in full without requireTrust: a library caller chose them", async () => {
    write(cwd, ".gyre", "settings.json", granting);
    const settings = await loadSettings({ cwd, home });
    expect(settings.ignored).toBeUndefined();
    expect(settings.permissions.allow.map((rule) => rule.rule)).toEqual(["Bash"]);
  });

  it("reads only the scopes asked for", async () => {
    write(home, ".gyre", "settings.json", { permissions: { allow: ["Read"] } });
    write(cwd, ".gyre", "settings.json", granting);
    write(cwd, ".gyre", "settings.local.json", "{ not json");
    const settings = await loadSettings({ cwd, home, sources: ["user"], requireTrust: true });
    expect(settings.files.map((file) => file.scope)).toEqual(["user"]);
    expect(settings.ignored).toBeUndefined();
  });

  it("fails with a config_error naming the trust record when it is broken", async () => {
    write(cwd, ".gyre", "settings.json", granting);
    mkdirSync(path.join(home, ".gyre"), { recursive: true });
    const record = path.join(home, ".gyre", "trusted-folders.json");
    writeFileSync(record, "{");
    const error = await loadSettings({ cwd, home, requireTrust: true }).catch((caught: unknown) => caught);
    expect(isGyreError(error, "config_error")).toBe(true);
    expect((error as Error).message).toContain(record);
  });
});

describe("loadSettings with flagSettings (--settings)", () => {
  it("puts an object over every file, and trusts it in a folder that is not trusted", async () => {
    write(cwd, ".gyre", "settings.local.json", {
      model: "anthropic/claude-haiku-4-5",
      permissions: { deny: ["Read"] },
    });
    const settings = await loadSettings({
      cwd,
      home,
      requireTrust: true,
      flagSettings: { model: "openai/gpt-5", permissions: { allow: ["Bash(ls)"] }, env: { A: "1" } },
    });
    expect(settings.model).toBe("openai/gpt-5");
    expect(settings.permissions.allow.map((rule) => rule.rule)).toEqual(["Bash(ls)"]);
    expect(settings.permissions.deny.map((rule) => rule.rule)).toEqual(["Read"]);
    expect(settings.env).toEqual({ A: "1" });
    expect(settings.files.at(-1)).toMatchObject({ scope: "flag", path: "settings option" });
  });

  it("reads a path relative to cwd, and fails naming a file that is missing or invalid", async () => {
    writeFileSync(path.join(cwd, "extra.json"), JSON.stringify({ permissions: { ask: ["Write"] } }));
    const settings = await loadSettings({ cwd, home, sources: [], flagSettings: "extra.json" });
    expect(settings.permissions.ask).toEqual([{ rule: "Write", source: path.join(cwd, "extra.json"), root: cwd }]);
    const missing = await loadSettings({ cwd, home, flagSettings: "nope.json" }).catch((error: unknown) => error);
    expect(isGyreError(missing) && missing.code === "config_error" && missing.message).toContain("nope.json");
    const invalid = await loadSettings({ cwd, home, flagSettings: { env: { A: 1 } } }).catch((e: unknown) => e);
    expect(isGyreError(invalid) && invalid.message).toContain("settings option is invalid: env.A");
  });
});
