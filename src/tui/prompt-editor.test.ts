import { describe, expect, it } from "vitest";
import { backspace, EMPTY, enter, HistoryWalk, insert, move, typeKeys, typeText } from "./prompt-editor.js";

describe("prompt editor", () => {
  it("submits on Enter, and makes a new line of `\\` + Enter or Shift+Enter", () => {
    let state = insert(EMPTY, "first\\");
    const continued = enter(state, false);
    expect(continued.submit).toBeUndefined();
    state = insert(continued.state, "second");
    state = enter(state, true).state;
    state = insert(state, "third");
    expect(enter(state, false)).toEqual({ state: EMPTY, submit: "first\nsecond\nthird" });
  });

  it("edits at the cursor and turns pasted carriage returns into new lines", () => {
    let state = insert(EMPTY, "ac");
    state = insert(move(state, -1), "b");
    expect(state).toEqual({ text: "abc", cursor: 2 });
    expect(backspace(state)).toEqual({ text: "ac", cursor: 1 });
    expect(insert(EMPTY, "x\r\ny\rz").text).toBe("x\ny\nz");
  });

  it("applies several keys of one read in turn, and never inserts control characters", () => {
    const state = insert(EMPTY, "draft");
    expect(typeText(state, "\x04\x7f\x7f")).toEqual({ text: "dra", cursor: 3 });
    expect(typeText(EMPTY, "a\x1b\x01b\r\nc\bd").text).toBe("ab\nd");
  });

  it("continues a line ended by \\ the same whether Enter came alone or in one read with the next line", () => {
    const typed = insert(EMPTY, "line one\\");
    const apart = typeKeys(enter(typed, false).state, "line two");
    expect(typeKeys(typed, "\rline two")).toEqual(apart);
    expect(apart.text).toBe("line one\nline two");
    // A line end with no \ before it is a new line, never a send.
    expect(typeKeys(EMPTY, "a\r\nb\x7fc").text).toBe("a\nc");
  });

  it("walks the history with Up and Down and gives back the draft past the newest", () => {
    const walk = new HistoryWalk(() => ["one", "two"]);
    expect(walk.older("draft")).toBe("two");
    expect(walk.older("two")).toBe("one");
    expect(walk.older("one")).toBeUndefined();
    expect(walk.newer()).toBe("two");
    expect(walk.newer()).toBe("draft");
    expect(walk.newer()).toBeUndefined();
  });
});

describe("pastes", () => {
  it("puts a short paste in as it is, a long one as a placeholder that is sent in full", async () => {
    const { Pastes } = await import("./paste.js");
    const pastes = new Pastes();
    expect(pastes.add("one\r\ntwo")).toBe("one\ntwo");
    const long = Array.from({ length: 12 }, (_, i) => `row ${i}`).join("\n");
    const wide = "x".repeat(900);
    expect(pastes.add(long)).toBe("[Pasted text #1 +11 lines]");
    expect(pastes.add(wide)).toBe("[Pasted text #2 900 chars]");
    expect(
      pastes.expand("see [Pasted text #1 +11 lines] and [Pasted text #2 900 chars] [Pasted text #9 +1 lines]"),
    ).toBe(`see ${long} and ${wide} [Pasted text #9 +1 lines]`);
    // Sent once: a placeholder typed by hand later is left alone.
    expect(pastes.expand("[Pasted text #1 +11 lines]")).toBe("[Pasted text #1 +11 lines]");
  });
});
