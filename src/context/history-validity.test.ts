import { describe, expect, it } from "vitest";
import { entry } from "./history-fixtures.js";
import { historyProblems, isValidHistory } from "./history-validity.js";

describe("historyProblems", () => {
  it("accepts a conversation with answered tool calls", () => {
    const history = [entry.user("task"), ...entry.toolTurn("a", "out"), entry.text("done")];
    expect(historyProblems(history)).toEqual([]);
    expect(isValidHistory(history)).toBe(true);
  });

  it("rejects an empty history and one that starts with the assistant", () => {
    expect(historyProblems([])).toEqual(["the history is empty"]);
    expect(historyProblems([entry.text("hi")])).toContain("the history does not start with a user entry");
  });

  it("rejects a tool_use without its tool_result", () => {
    const [call] = entry.toolTurn("a", "out");
    expect(historyProblems([entry.user("task"), call, entry.user("next")])).toEqual([
      "tool_use a in entry 1 has no tool_result after it",
    ]);
  });

  it("rejects an orphan tool_result", () => {
    const [, result] = entry.toolTurn("a", "out");
    expect(historyProblems([entry.user("task"), entry.text("hm"), result])).toEqual([
      "tool_result a in entry 2 answers no tool_use just before it",
    ]);
  });

  it("rejects two entries of the same role in a row", () => {
    expect(historyProblems([entry.user("a"), entry.user("b")])).toEqual(["entries 0 and 1 are both user"]);
  });
});
