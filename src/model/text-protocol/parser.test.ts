import { describe, expect, it } from "vitest";
import { type ParsedEvent, TextProtocolParser } from "./parser.js";

/** Parse `pieces` in order and merge neighbouring deltas, so results compare across splits. */
function parse(pieces: readonly string[]): ParsedEvent[] {
  const parser = new TextProtocolParser();
  const events = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.end()];
  const merged: ParsedEvent[] = [];
  for (const event of events) {
    const previous = merged.at(-1);
    if (previous && "text" in previous && "text" in event && previous.type === event.type) {
      merged[merged.length - 1] = { ...previous, text: previous.text + event.text };
    } else {
      merged.push(event);
    }
  }
  return merged;
}

const SAMPLE =
  "<thinking>\nI need 6*7 and 2+3.\n</thinking>\nLet me compute < that.\n" +
  '<tool>\n{"tool_name": "calculator", "arguments": {"a": 6, "b": 7, "op": "*"}}\n</tool>\n' +
  '<tool>{"tool_name":"echo","arguments":{"text":"a </tool> inside \\" quotes"}}</tool>\n';

const SAMPLE_EVENTS: ParsedEvent[] = [
  { type: "reasoning-start" },
  { type: "reasoning-delta", text: "I need 6*7 and 2+3." },
  { type: "reasoning-end" },
  { type: "text-start" },
  { type: "text-delta", text: "Let me compute < that." },
  { type: "text-end" },
  {
    type: "tool",
    body: '\n{"tool_name": "calculator", "arguments": {"a": 6, "b": 7, "op": "*"}}\n',
    closed: true,
  },
  {
    type: "tool",
    body: '{"tool_name":"echo","arguments":{"text":"a </tool> inside \\" quotes"}}',
    closed: true,
  },
];

describe("TextProtocolParser", () => {
  it("reads text, thinking and tool blocks in order", () => {
    expect(parse([SAMPLE])).toEqual(SAMPLE_EVENTS);
  });

  it("gives the same events at every split point", () => {
    for (let split = 0; split <= SAMPLE.length; split++) {
      expect(parse([SAMPLE.slice(0, split), SAMPLE.slice(split)]), `split at ${split}`).toEqual(SAMPLE_EVENTS);
    }
  });

  it("gives the same events when every character arrives alone", () => {
    expect(parse([...SAMPLE])).toEqual(SAMPLE_EVENTS);
  });

  it("streams text before a tag is complete, holding back only a possible tag prefix", () => {
    const parser = new TextProtocolParser();
    expect(parser.push("Hello wor")).toEqual([{ type: "text-start" }, { type: "text-delta", text: "Hello wor" }]);
    expect(parser.push("ld <to")).toEqual([{ type: "text-delta", text: "ld" }]);
    expect(parser.push("day")).toEqual([{ type: "text-delta", text: " <today" }]);
    expect(parser.end()).toEqual([{ type: "text-end" }]);
  });

  it("keeps a trailing tag prefix as text at the end", () => {
    expect(parse(["a <thin"])).toEqual([
      { type: "text-start" },
      { type: "text-delta", text: "a <thin" },
      { type: "text-end" },
    ]);
  });

  it("accepts <think> as well as <thinking>, and an unclosed thinking section", () => {
    expect(parse(["<think>hmm</think>ok"])).toEqual([
      { type: "reasoning-start" },
      { type: "reasoning-delta", text: "hmm" },
      { type: "reasoning-end" },
      { type: "text-start" },
      { type: "text-delta", text: "ok" },
      { type: "text-end" },
    ]);
    expect(parse(["<thinking>still going"])).toEqual([
      { type: "reasoning-start" },
      { type: "reasoning-delta", text: "still going" },
      { type: "reasoning-end" },
    ]);
  });

  it("emits nothing for whitespace between blocks and keeps inner whitespace", () => {
    expect(parse(["  \n<tool>{}</tool>\n\n<tool>{}</tool>\n  ", "\n"])).toEqual([
      { type: "tool", body: "{}", closed: true },
      { type: "tool", body: "{}", closed: true },
    ]);
    expect(parse(["one \n\n", " two  "])).toEqual([
      { type: "text-start" },
      { type: "text-delta", text: "one \n\n two" },
      { type: "text-end" },
    ]);
  });

  it("reports a block left open at the end", () => {
    expect(parse(['x <tool>{"tool_name": "calc'])).toEqual([
      { type: "text-start" },
      { type: "text-delta", text: "x" },
      { type: "text-end" },
      { type: "tool", body: '{"tool_name": "calc', closed: false },
    ]);
  });

  it("closes a block with an unbalanced quote at its first </tool> and reads on", () => {
    const text = '<tool>{"tool_name": "a", "arguments": {"x": "oops}}</tool> after <tool>{"tool_name":"b"}</tool>';
    for (let split = 0; split <= text.length; split++) {
      expect(parse([text.slice(0, split), text.slice(split)]), `split at ${split}`).toEqual([
        { type: "tool", body: '{"tool_name": "a", "arguments": {"x": "oops}}', closed: true },
        { type: "text-start" },
        { type: "text-delta", text: "after" },
        { type: "text-end" },
        { type: "tool", body: '{"tool_name":"b"}', closed: true },
      ]);
    }
  });

  it("drops a <tool_result> the model invents after a call, but not one in plain prose", () => {
    expect(parse(['<tool>{}</tool><tool_result tool_name="x">42</tool_result> So 42.'])).toEqual([
      { type: "tool", body: "{}", closed: true },
    ]);
    expect(parse(["Results look like <tool_result>."])).toEqual([
      { type: "text-start" },
      { type: "text-delta", text: "Results look like <tool_result>." },
      { type: "text-end" },
    ]);
  });

  it("reports nothing for empty input", () => {
    expect(parse([""])).toEqual([]);
  });
});
