import { stripVTControlCharacters } from "node:util";
import { renderToString as inkRenderToString } from "ink";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { TodoPanel } from "./todo-list.js";
import { Transcript, type TranscriptItem } from "./transcript.js";
import { TranscriptItemView } from "./transcript-item.js";

const base = { session_id: "s", uuid: "u", parent_tool_use_id: null };
const assistant = (content: unknown[], parent: string | null = null) =>
  ({
    ...base,
    parent_tool_use_id: parent,
    type: "assistant",
    message: { content, usage: {} },
  }) as unknown as SDKMessage;
const toolResult = (id: string, content: string, parent: string | null = null) =>
  ({
    ...base,
    parent_tool_use_id: parent,
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
  }) as unknown as SDKMessage;

// Without styles, whatever colours the environment forces (FORCE_COLOR): the tests read the text.
const renderToString = (...args: Parameters<typeof inkRenderToString>) =>
  stripVTControlCharacters(inkRenderToString(...args));
const render = (item: TranscriptItem | undefined, expanded = false, columns = 80) => {
  if (!item) throw new Error("no item");
  return renderToString(createElement(TranscriptItemView, { item, waitingId: undefined, expanded }), { columns });
};

describe("TranscriptItemView", () => {
  it("shows an Edit's diff under its line: removed lines with -, added with +, context unmarked", () => {
    const transcript = new Transcript("/p");
    transcript.apply(
      assistant([
        {
          type: "tool_use",
          id: "e1",
          name: "Edit",
          input: {
            file_path: "/p/src/sum.js",
            old_string: "function sum(a, b) {\n  return a - b;\n}",
            new_string: "function sum(a, b) {\n  return a + b;\n}",
          },
        },
      ]),
    );
    transcript.apply(toolResult("e1", "The file /p/src/sum.js has been updated."));
    const screen = render(transcript.tool("e1"));
    expect(screen).toContain("✓ Edit src/sum.js");
    expect(screen).toMatch(/⎿ {3}function sum\(a, b\) \{\n\s+- {3}return a - b;\n\s+\+ {3}return a \+ b;\n\s+ {4}\}/);
  });

  it("caps a long Write at a few rows with how many more, and shows it all when expanded", () => {
    const transcript = new Transcript("/p");
    const content = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    transcript.apply(
      assistant([{ type: "tool_use", id: "w1", name: "Write", input: { file_path: "/p/a.txt", content } }]),
    );
    const collapsed = render(transcript.tool("w1"));
    expect(collapsed).toContain("+ line 10");
    expect(collapsed).not.toContain("+ line 11");
    expect(collapsed).toContain("… 19 more lines (Ctrl+O to expand)");
    const expanded = render(transcript.tool("w1"), true);
    expect(expanded).toContain("+ line 29");
    expect(expanded).not.toContain("more lines");
  });

  it("folds thinking into one dim line, its text shown only when expanded", () => {
    const transcript = new Transcript("/p");
    transcript.apply(assistant([{ type: "thinking", thinking: "The bug is in **sum**." }]));
    const collapsed = render(transcript.items[0]);
    expect(collapsed).toContain("✻ Thinking… (Ctrl+O to expand)");
    expect(collapsed).not.toContain("The bug is in");
    expect(render(transcript.items[0], true)).toContain("The bug is in sum.");
  });

  it("nests a subagent's latest steps under its call, indented, all of them when expanded", () => {
    const transcript = new Transcript("/p");
    transcript.apply(assistant([{ type: "tool_use", id: "a1", name: "Agent", input: { description: "survey" } }]));
    for (const n of [1, 2, 3, 4]) {
      transcript.apply(
        assistant([{ type: "tool_use", id: `g${n}`, name: "Glob", input: { pattern: `*.${n}` } }], "a1"),
      );
      transcript.apply(toolResult(`g${n}`, "x", "a1"));
    }
    const collapsed = render(transcript.tool("a1"));
    expect(collapsed).toMatch(/^\S+ Agent survey/);
    expect(collapsed).toMatch(/\n {4}… 1 earlier step \(Ctrl\+O to expand\)\n {4}✓ Glob \*\.2/);
    expect(collapsed).not.toContain("*.1");
    expect(render(transcript.tool("a1"), true)).toMatch(/\n {4}✓ Glob \*\.1 \(1 file\)/);
  });

  it("lays out in a narrow terminal without a line past its width", () => {
    const transcript = new Transcript("/p");
    transcript.apply(
      assistant([
        {
          type: "text",
          text: "A long answer that must wrap in a narrow terminal.\n```js\nconst x = 'a long string literal';\n```",
        },
        {
          type: "tool_use",
          id: "e",
          name: "Edit",
          input: { file_path: "/p/x", old_string: "a".repeat(50), new_string: "b".repeat(50) },
        },
      ]),
    );
    for (const item of transcript.items) {
      for (const line of render(item, false, 20).split("\n")) expect(line.length).toBeLessThanOrEqual(20);
    }
  });
});

describe("TodoPanel", () => {
  const todos = [
    { content: "Read the code", status: "completed", activeForm: "Reading the code" },
    { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
    { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
  ] as const;

  it("marks tasks done, in progress (by their active form) and pending", () => {
    const screen = renderToString(createElement(TodoPanel, { todos: [...todos], busy: false }));
    expect(screen).toContain("☒ Read the code");
    expect(screen).toContain("◐ Fixing the bug");
    expect(screen).toContain("☐ Run the tests");
  });

  it("goes away once every task is done and the turn is over", () => {
    const done = todos.map((todo) => ({ ...todo, status: "completed" as const }));
    expect(renderToString(createElement(TodoPanel, { todos: done, busy: true }))).toContain("☒ Run the tests");
    expect(renderToString(createElement(TodoPanel, { todos: done, busy: false }))).toBe("");
  });
});
