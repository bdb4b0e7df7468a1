import { describe, expect, it } from "vitest";
import { searchTools } from "./rank.js";

const tool = (name: string, description = "") => ({ name, description });

const TOOLS = [
  tool("mcp__slack__send_message", "Send a message to a Slack channel."),
  tool("mcp__slack__read_channel", "Read the latest messages of a channel."),
  tool("mcp__github__create_issue", "Open an issue in a repository."),
  tool("mcp__github__list_issues", "List the issues of a repository, newest first."),
  tool("mcp__jira__createTicket", "Create a ticket (an issue) in a Jira project."),
  tool("mcp__notes__append", "Append text to a note; mentions slack in passing."),
  tool("NotebookEdit", "Replace, insert or delete a cell of a Jupyter notebook."),
];
const names = (found: Array<{ name: string }>) => found.map((entry) => entry.name);

describe("searchTools", () => {
  it("select: returns exactly the named tools, in the order asked, leaving out unknown names", () => {
    expect(names(searchTools(TOOLS, "select:mcp__github__list_issues,NotebookEdit,nope"))).toEqual([
      "mcp__github__list_issues",
      "NotebookEdit",
    ]);
    expect(names(searchTools(TOOLS, " select: notebookedit "))).toEqual(["NotebookEdit"]);
    expect(searchTools(TOOLS, "select:")).toEqual([]);
    // A select is not cut to max_results.
    expect(searchTools(TOOLS, `select:${TOOLS.map((entry) => entry.name).join(",")}`, 2)).toHaveLength(TOOLS.length);
  });

  it("a query that is a tool's exact name returns that tool", () => {
    expect(names(searchTools(TOOLS, "mcp__slack__read_channel"))).toEqual(["mcp__slack__read_channel"]);
  });

  it("a word of the tool's own name ranks above its server's name, which ranks above the description", () => {
    expect(names(searchTools(TOOLS, "issue"))).toEqual([
      "mcp__github__create_issue",
      "mcp__github__list_issues",
      "mcp__jira__createTicket",
    ]);
    expect(names(searchTools(TOOLS, "slack"))).toEqual([
      "mcp__slack__send_message",
      "mcp__slack__read_channel",
      "mcp__notes__append",
    ]);
  });

  it("scores add up over the words: the tool matching most words comes first", () => {
    expect(names(searchTools(TOOLS, "slack channel read")).slice(0, 2)).toEqual([
      "mcp__slack__read_channel",
      "mcp__slack__send_message",
    ]);
    expect(names(searchTools(TOOLS, "create ticket"))[0]).toBe("mcp__jira__createTicket");
    expect(names(searchTools(TOOLS, "jupyter notebook"))).toEqual(["NotebookEdit"]);
  });

  it("camelCase, snake_case and kebab-case names split into words; a prefix of a word matches", () => {
    expect(names(searchTools(TOOLS, "ticket"))).toEqual(["mcp__jira__createTicket"]);
    expect(names(searchTools(TOOLS, "notebook"))).toEqual(["NotebookEdit"]);
    expect(names(searchTools(TOOLS, "mess"))[0]).toBe("mcp__slack__send_message");
  });

  it("+word must be in the name; the other words rank what is left", () => {
    expect(names(searchTools(TOOLS, "+slack"))).toEqual(["mcp__slack__send_message", "mcp__slack__read_channel"]);
    expect(names(searchTools(TOOLS, "+slack read"))).toEqual(["mcp__slack__read_channel", "mcp__slack__send_message"]);
    expect(names(searchTools(TOOLS, "+github create"))).toEqual([
      "mcp__github__create_issue",
      "mcp__github__list_issues",
    ]);
    expect(searchTools(TOOLS, "+linear issue")).toEqual([]);
  });

  it("returns at most max results (5 by default), ties in the tools' order; nothing for no match or no words", () => {
    const many = Array.from({ length: 12 }, (_, index) => tool(`mcp__s__widget_${index}`, "A widget."));
    expect(names(searchTools(many, "widget"))).toEqual(many.slice(0, 5).map((entry) => entry.name));
    expect(searchTools(many, "widget", 8)).toHaveLength(8);
    expect(searchTools(TOOLS, "kubernetes")).toEqual([]);
    expect(searchTools(TOOLS, "   ")).toEqual([]);
    expect(searchTools(TOOLS, "+")).toEqual([]);
  });

  it("matches regardless of case", () => {
    expect(names(searchTools(TOOLS, "SLACK Send"))[0]).toBe("mcp__slack__send_message");
  });
});
