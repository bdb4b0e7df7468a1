import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../protocol/index.js";
import { entry } from "./history-fixtures.js";
import { historyProblems } from "./history-validity.js";
import { messageWindow } from "./message-window.js";

/** A session: a prompt, three tool turns and an answer, a second prompt, two tool turns. */
function session(): HistoryEntry[] {
  return [
    entry.user("first task"),
    ...entry.toolTurn("a", "A"),
    ...entry.toolTurn("b", "B"),
    ...entry.toolTurn("c", "C"),
    entry.text("done"),
    entry.user("second task"),
    ...entry.toolTurn("d", "D"),
    ...entry.toolTurn("e", "E"),
  ];
}

const shown = (history: readonly HistoryEntry[]) =>
  history.map((item) =>
    item.role === "user"
      ? typeof item.content === "string"
        ? item.content
        : `result ${item.content.map((block) => (block.type === "tool_result" ? block.tool_use_id : "")).join()}`
      : item.message.content
          .map((block) => (block.type === "tool_use" ? `call ${block.id}` : block.type === "text" ? block.text : ""))
          .join(),
  );

describe("messageWindow", () => {
  it("leaves a history within the count alone", () => {
    const history = session();
    expect(messageWindow(history, history.length)).toBe(history);
  });

  it("cuts at a person's message when one is in reach", () => {
    expect(shown(messageWindow(session(), 5))).toEqual(["second task", "call d", "result d", "call e", "result e"]);
  });

  it("otherwise cuts at an assistant entry and keeps the latest prompt in front", () => {
    expect(shown(messageWindow(session(), 4))).toEqual(["second task", "call e", "result e"]);
    expect(shown(messageWindow(session(), 3))).toEqual(["second task", "call e", "result e"]);
  });

  it("never parts a tool_use from its tool_result, even past the count", () => {
    expect(shown(messageWindow(session(), 1))).toEqual(["second task", "call e", "result e"]);
  });

  it("keeps every window a valid history, whatever the count", () => {
    const history = session();
    for (let count = 1; count <= history.length + 1; count++) {
      const window = messageWindow(history, count);
      expect(historyProblems(window), `maxMessages ${count}`).toEqual([]);
      if (count >= 3) expect(window.length, `maxMessages ${count}`).toBeLessThanOrEqual(count);
    }
  });
});
