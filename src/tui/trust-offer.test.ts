import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { trustFolder } from "../settings/index.js";
import { describeOffer, summarizeOffer, trustOfferFor } from "./trust-offer.js";

const ALL = ["user", "project", "local"] as const;
let project: string;
let home: string;

beforeEach(() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gyre-offer-")));
  project = join(root, "project");
  home = join(root, "home");
  mkdirSync(join(project, ".gyre"), { recursive: true });
  mkdirSync(home);
});

function write(file: string, content: unknown): void {
  mkdirSync(join(project, file, ".."), { recursive: true });
  writeFileSync(join(project, file), typeof content === "string" ? content : JSON.stringify(content));
}

describe("trustOfferFor: what trusting a folder would apply", () => {
  it("lists allow rules, hooks and other keys per file, .mcp.json's servers and the agent files", async () => {
    write(".gyre/settings.json", {
      permissions: { allow: ["Bash(npm test:*)"], deny: ["Bash(rm:*)"], defaultMode: "acceptEdits" },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }] },
      env: { TOKEN: "x" },
    });
    write(".claude/settings.local.json", { permissions: { allow: ["Read"] } });
    write(".mcp.json", {
      mcpServers: { docs: { command: "npx", args: ["-y", "docs"] }, web: { type: "http", url: "https://x.test/mcp" } },
    });
    write(".gyre/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews.\n---\nReview the change.");
    const offer = await trustOfferFor({ cwd: project, home, sources: ALL });
    expect(offer).toEqual({
      folder: project,
      settings: [
        {
          file: ".gyre/settings.json",
          allow: ["Bash(npm test:*)"],
          hooks: ["PreToolUse [Bash] ./check.sh"],
          other: ["permissions.defaultMode", "env"],
        },
        { file: ".claude/settings.local.json", allow: ["Read"], hooks: [], other: [] },
      ],
      mcpServers: [
        { name: "docs", runs: "npx -y docs" },
        { name: "web", runs: "https://x.test/mcp" },
      ],
      agents: ["reviewer"],
      problems: [],
      ignored: {
        folder: project,
        files: [
          {
            path: join(project, ".gyre/settings.json"),
            ignored: ["permissions.allow", "permissions.defaultMode", "hooks", "env"],
          },
          { path: join(project, ".claude/settings.local.json"), ignored: ["permissions.allow"] },
          { path: join(project, ".mcp.json"), ignored: ["mcpServers.docs", "mcpServers.web"] },
        ],
      },
    });
    expect(describeOffer(offer!)).toEqual([
      ".gyre/settings.json",
      "  allow: Bash(npm test:*)",
      "  hook: PreToolUse [Bash] ./check.sh",
      "  also: permissions.defaultMode, env",
      ".claude/settings.local.json",
      "  allow: Read",
      "MCP servers (.mcp.json)",
      "  docs: npx -y docs",
      "  web: https://x.test/mcp",
      "agents: reviewer",
    ]);
    expect(summarizeOffer(offer!)).toBe(
      ".gyre/settings.json (allow rules, hooks, permissions.defaultMode, env), " +
        ".claude/settings.local.json (allow rules), the MCP servers of .mcp.json (docs, web), the agent files (reviewer)",
    );
  });

  it("offers nothing for a trusted folder (or one under it), one with no files, or one that only restricts", async () => {
    expect(await trustOfferFor({ cwd: project, home, sources: ALL })).toBeUndefined();
    write(".gyre/settings.json", { $schema: "x", permissions: { deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"] } });
    expect(await trustOfferFor({ cwd: project, home, sources: ALL })).toBeUndefined();
    write(".mcp.json", { mcpServers: { docs: { command: "docs" } } });
    expect(await trustOfferFor({ cwd: project, home, sources: ALL })).toBeDefined();
    await trustFolder(project, { home });
    mkdirSync(join(project, "sub", ".gyre"), { recursive: true });
    writeFileSync(join(project, "sub", ".mcp.json"), JSON.stringify({ mcpServers: { x: { command: "x" } } }));
    expect(await trustOfferFor({ cwd: project, home, sources: ALL })).toBeUndefined();
    expect(await trustOfferFor({ cwd: join(project, "sub"), home, sources: ALL })).toBeUndefined();
  });

  it("looks only at the scopes the run reads: without project, neither .mcp.json nor agents nor settings.json", async () => {
    write(".gyre/settings.json", { permissions: { allow: ["Read"] } });
    write(".mcp.json", { mcpServers: { docs: { command: "docs" } } });
    expect(await trustOfferFor({ cwd: project, home, sources: ["user"] })).toBeUndefined();
    expect(await trustOfferFor({ cwd: project, home, sources: ["user", "local"] })).toBeUndefined();
    write(".gyre/settings.local.json", { permissions: { allow: ["Bash(ls)"] } });
    const offer = await trustOfferFor({ cwd: project, home, sources: ["local"] });
    expect(offer?.settings.map((file) => file.file)).toEqual([".gyre/settings.local.json"]);
    expect(offer?.mcpServers).toEqual([]);
  });

  it("lists a file it cannot read as a problem, and offers the rest", async () => {
    write(".gyre/settings.json", "{ not json");
    write(".mcp.json", { mcpServers: { docs: { command: "docs" } } });
    const offer = await trustOfferFor({ cwd: project, home, sources: ALL });
    expect(offer?.mcpServers).toEqual([{ name: "docs", runs: "docs" }]);
    expect(offer?.problems).toEqual([expect.stringContaining(".gyre/settings.json is not valid JSON")]);
    expect(describeOffer(offer!).at(-1)).toMatch(/^cannot read: Settings file .*settings\.json is not valid JSON/);
  });
});
