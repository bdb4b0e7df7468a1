import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { mergeSettings } from "../settings/index.js";
import { conversationMarkdown, defaultExportName } from "./export-markdown.js";
import { describeHooks, describeMcp, describePermissions, describePlugins } from "./info-commands.js";

describe("/permissions, /hooks, /mcp", () => {
  it("shows each rule with its source, and says when none is set", () => {
    const settings = mergeSettings([], "/home/x");
    settings.permissions.allow.push({ rule: "Bash(npm test:*)", source: "/p/.gyre/settings.local.json" });
    const text = describePermissions(settings, { mode: "acceptEdits", disallowedTools: ["WebFetch"] });
    expect(text).toBe(
      [
        "Permission mode: acceptEdits (Shift+Tab cycles)",
        "Allow:",
        "  Bash(npm test:*)   ← /p/.gyre/settings.local.json",
        "Ask:",
        "  (none)",
        "Deny:",
        "  WebFetch   ← --disallowed-tools",
      ].join("\n"),
    );
    expect(describeHooks(settings)).toBe("No hooks are configured.");
  });

  it("lists MCP servers with their status and own tools", () => {
    const text = describeMcp(
      [
        { name: "docs", status: "connected" },
        { name: "db", status: "failed", error: "spawn ENOENT" },
      ],
      ["Read", "mcp__docs__search", "mcp__docs__fetch", "mcp__dbx__q"],
    );
    expect(text).toBe("MCP servers:\n  docs: connected\n    tools: search, fetch\n  db: failed (spawn ENOENT)");
  });
});

describe("/export", () => {
  it("writes prompts, answers, tool calls and results as Markdown, fences longer than the content's backticks", () => {
    const base = { session_id: "s", uuid: "u", parent_tool_use_id: null };
    const messages = [
      { ...base, type: "user", message: { role: "user", content: "list files" } },
      {
        ...base,
        type: "assistant",
        message: {
          content: [
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
          ],
        },
      },
      {
        ...base,
        type: "user",
        isSynthetic: true,
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.md\n```x```" }] },
      },
      { ...base, type: "assistant", message: { content: [{ type: "text", text: "Two files." }] } },
    ] as unknown as SDKMessage[];
    expect(conversationMarkdown(messages, "Gyre session s")).toBe(
      [
        "# Gyre session s",
        "## You",
        "list files",
        "## Gyre",
        "Looking.",
        '**Bash**\n\n```json\n{\n  "command": "ls"\n}\n```',
        "Result:\n\n````\na.md\n```x```\n````",
        "Two files.\n",
      ].join("\n\n"),
    );
    expect(defaultExportName("0123456789abcdef", new Date("2026-11-27T10:00:00Z"))).toBe("gyre-2026-11-27-01234567.md");
  });
});

describe("/plugins", () => {
  it("lists each plugin with its folder and what it brought, by namespace", () => {
    const text = describePlugins({
      plugins: [
        { name: "kit", path: "/p/kit" },
        { name: "bare", path: "/p/bare" },
      ],
      slash_commands: ["kit:hello", "other"],
      skills: ["kit:lint", "mine"],
      agents: ["general-purpose", "kit:reviewer"],
      mcp_servers: [
        { name: "plugin_kit_calc", status: "connected" },
        { name: "fs", status: "connected" },
      ],
    });
    expect(text).toBe(
      [
        "Plugins:",
        "  kit: /p/kit",
        "    commands: /kit:hello",
        "    skills: kit:lint",
        "    agents: kit:reviewer",
        "    MCP servers: plugin_kit_calc (connected)",
        "  bare: /p/bare",
      ].join("\n"),
    );
    expect(describePlugins({ plugins: [], slash_commands: [], skills: [], mcp_servers: [] })).toContain(
      "No plugins are loaded",
    );
  });
});
