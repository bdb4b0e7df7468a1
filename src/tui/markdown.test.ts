import { stripVTControlCharacters } from "node:util";
import { renderToString } from "ink";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { highlight } from "./highlight.js";
import { inlineSpans, markdownBlocks } from "./markdown-blocks.js";
import { Markdown } from "./markdown.js";

// Without styles, whatever colours the environment forces (FORCE_COLOR): the tests read the text.
const render = (text: string, columns = 60) =>
  stripVTControlCharacters(renderToString(createElement(Markdown, { text }), { columns }));

describe("markdownBlocks", () => {
  it("splits headings, list items, quotes, rules and fenced code, and folds blank runs", () => {
    const blocks = markdownBlocks(
      "# Title\n\n\n- one\n  - nested\n1. first\n- [x] done\n> said\n---\n```ts\nconst a = 1;\n```\nafter",
    );
    expect(blocks).toEqual([
      { kind: "heading", level: 1, text: "Title" },
      { kind: "blank" },
      { kind: "item", marker: "•", depth: 0, text: "one" },
      { kind: "item", marker: "•", depth: 1, text: "nested" },
      { kind: "item", marker: "1.", depth: 0, text: "first" },
      { kind: "item", marker: "☒", depth: 0, text: "done" },
      { kind: "quote", text: "said" },
      { kind: "rule" },
      { kind: "code", language: "ts", text: "const a = 1;" },
      { kind: "text", text: "after" },
    ]);
  });

  it("treats an unclosed fence (an answer still streaming) as code up to the end", () => {
    expect(markdownBlocks("Look:\n```py\nx = 1\ny = 2")).toEqual([
      { kind: "text", text: "Look:" },
      { kind: "code", language: "py", text: "x = 1\ny = 2" },
    ]);
  });

  it("closes a fence only with a bare fence at least as long", () => {
    expect(markdownBlocks("````md\n```js\ninner\n```\n````")).toEqual([
      { kind: "code", language: "md", text: "```js\ninner\n```" },
    ]);
  });
});

describe("inlineSpans", () => {
  it("finds code, bold, italic, struck text and links, and leaves lone marks alone", () => {
    expect(
      inlineSpans("Run `npm test`, **then** _check_ *it* ~~now~~ [docs](https://x.dev) 2 * 3 snake_case_name"),
    ).toEqual([
      { kind: "text", text: "Run " },
      { kind: "code", text: "npm test" },
      { kind: "text", text: ", " },
      { kind: "bold", text: "then" },
      { kind: "text", text: " " },
      { kind: "italic", text: "check" },
      { kind: "text", text: " " },
      { kind: "italic", text: "it" },
      { kind: "text", text: " " },
      { kind: "strike", text: "now" },
      { kind: "text", text: " " },
      { kind: "link", text: "docs", url: "https://x.dev" },
      { kind: "text", text: " 2 * 3 snake_case_name" },
    ]);
  });
});

describe("highlight", () => {
  it("colours keywords, strings, numbers and comments of a C-like language", () => {
    expect(highlight('const x = "a // b"; // note\nreturn 42;', "ts")).toEqual([
      [
        { kind: "keyword", text: "const" },
        { kind: "plain", text: " x = " },
        { kind: "string", text: '"a // b"' },
        { kind: "plain", text: "; " },
        { kind: "comment", text: "// note" },
      ],
      [
        { kind: "keyword", text: "return" },
        { kind: "plain", text: " " },
        { kind: "number", text: "42" },
        { kind: "plain", text: ";" },
      ],
    ]);
  });

  it("follows a block comment across lines", () => {
    const lines = highlight("/* one\ntwo */ let y", "js");
    expect(lines[0]).toEqual([{ kind: "comment", text: "/* one" }]);
    expect(lines[1]).toEqual([
      { kind: "comment", text: "two */" },
      { kind: "plain", text: " " },
      { kind: "keyword", text: "let" },
      { kind: "plain", text: " y" },
    ]);
  });

  it("knows # comments of shells and Python, and leaves an unknown language plain", () => {
    expect(highlight("if x: # why", "python")[0]).toEqual([
      { kind: "keyword", text: "if" },
      { kind: "plain", text: " x: " },
      { kind: "comment", text: "# why" },
    ]);
    expect(highlight("echo 'hi' # greet", "bash")[0]?.map((token) => token.kind)).toEqual([
      "keyword",
      "plain",
      "string",
      "plain",
      "comment",
    ]);
    expect(highlight("if else", "cobol")).toEqual([[{ kind: "plain", text: "if else" }]]);
  });
});

describe("Markdown", () => {
  it("renders headings, bullets and inline code without their marks, and a code block in a box", () => {
    const screen = render("## Plan\n- read `app.ts`\n- **fix** it\n\n```js\nconsole.log(1)\n```");
    expect(screen).toContain("Plan");
    expect(screen).not.toContain("##");
    expect(screen).toContain("• read app.ts");
    expect(screen).toContain("• fix it");
    expect(screen).toMatch(/│ js\s+│/);
    expect(screen).toMatch(/│ console\.log\(1\)\s+│/);
  });

  it("wraps long lines in a narrow terminal instead of cutting them", () => {
    const screen = render("alpha beta gamma delta epsilon zeta eta theta", 12);
    for (const word of ["alpha", "epsilon", "theta"]) expect(screen).toContain(word);
    for (const line of screen.split("\n")) expect(line.length).toBeLessThanOrEqual(12);
  });
});
