import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { parseAgentFile } from "./agent-files.js";

const read = (text: string) => parseAgentFile(text, "/p/.claude/agents/x.md", parse);

describe("agent files", () => {
  it("reads Claude Code's format: front matter fields, the body as the prompt", () => {
    const agent = read(
      "---\nname: reviewer\ndescription: >-\n  Reviews code\n  for bugs\ntools: Read, Grep , Glob\nmodel: haiku\n---\n\nYou review code.\n\nBe strict.\n",
    );
    expect(agent).toEqual({
      name: "reviewer",
      file: "/p/.claude/agents/x.md",
      definition: {
        description: "Reviews code for bugs",
        prompt: "You review code.\n\nBe strict.",
        tools: ["Read", "Grep", "Glob"],
        model: "haiku",
      },
    });
  });

  it("takes lists, maxTurns and permissionMode; the name defaults to the file's", () => {
    const agent = read(
      "---\ndescription: d\ntools: [Read]\ndisallowedTools:\n  - Bash\nmaxTurns: 5\npermissionMode: plan\n---\np",
    );
    expect(agent.name).toBe("x");
    expect(agent.definition).toEqual({
      description: "d",
      prompt: "p",
      tools: ["Read"],
      disallowedTools: ["Bash"],
      maxTurns: 5,
      permissionMode: "plan",
    });
  });

  it("takes handoffs as a list or a comma-separated string", () => {
    expect(read("---\ndescription: d\nhandoffs: [billing, support]\n---\np").definition.handoffs).toEqual([
      "billing",
      "support",
    ]);
    expect(read("---\ndescription: d\nhandoffs: billing, support\n---\np").definition.handoffs).toEqual([
      "billing",
      "support",
    ]);
  });

  it("takes the skills it starts with, as a list or a comma-separated string", () => {
    expect(read("---\ndescription: d\nskills: [pdf, kit:lint]\n---\np").definition.skills).toEqual(["pdf", "kit:lint"]);
    expect(read("---\ndescription: d\nskills: pdf, docs\n---\np").definition.skills).toEqual(["pdf", "docs"]);
  });

  it("takes mcpServers: a parent's server by name, or a map of its own servers as .mcp.json has them", () => {
    const agent = read(
      "---\ndescription: d\nmcpServers:\n  - github\n  - local:\n      command: node\n      args: [srv.js, '${ROOT}']\n" +
        "    remote:\n      type: http\n      url: https://example.com/mcp\n      headersHelper: ignored\n---\np",
    );
    expect(agent.definition.mcpServers).toEqual([
      "github",
      {
        local: { command: "node", args: ["srv.js", "${ROOT}"] },
        remote: { type: "http", url: "https://example.com/mcp" },
      },
    ]);
    expect(read("---\ndescription: d\nmcpServers: a, b\n---\np").definition.mcpServers).toEqual(["a", "b"]);
  });

  it.each([
    ["handoffs of the wrong kind", "---\ndescription: d\nhandoffs: {a: 1}\n---\np", /`handoffs`/],
    ["no front matter", "just text", /has no front matter/],
    ["bad YAML", "---\ndescription: [unclosed\n---\np", /not valid YAML/],
    ["no description", "---\nname: a\n---\np", /needs a `description`/],
    ["a bad name", "---\nname: a b\ndescription: d\n---\np", /`name`/],
    ["tools of the wrong kind", "---\ndescription: d\ntools: 3\n---\np", /`tools`/],
    ["a bad maxTurns", "---\ndescription: d\nmaxTurns: -1\n---\np", /`maxTurns`/],
    ["an unknown permission mode", "---\ndescription: d\npermissionMode: yolo\n---\np", /permissionMode/],
    ["mcpServers of the wrong kind", "---\ndescription: d\nmcpServers: 3\n---\np", /`mcpServers`/],
    [
      "an MCP server without command",
      "---\ndescription: d\nmcpServers:\n  - x:\n      args: []\n---\np",
      /"x".*command/,
    ],
    ["an MCP server of an unknown type", "---\ndescription: d\nmcpServers:\n  - x: { type: ws }\n---\np", /"x".*type/],
    ["a bad MCP server name", "---\ndescription: d\nmcpServers:\n  - 'a b': { command: c }\n---\np", /server name/],
  ])("%s is a config_error naming the file", (_, text, message) => {
    expect(() => read(text)).toThrow(message);
    expect(() => read(text)).toThrow("/p/.claude/agents/x.md");
  });
});
