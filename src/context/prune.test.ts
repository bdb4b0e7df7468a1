import type { HistoryEntry } from "../protocol/index.js";
import { describe, expect, it } from "vitest";
import { entry } from "./history-fixtures.js";
import { historyProblems } from "./history-validity.js";
import { PRUNED_OUTPUT_NOTE, pruneToolOutputs } from "./prune.js";

const big = (tag: string) => `${tag}:${"x".repeat(4_000)}`; // ~1,000 tokens

function outputs(history: readonly HistoryEntry[]): unknown[] {
  return history.flatMap((e) =>
    e.role === "user" && typeof e.content !== "string"
      ? e.content.flatMap((b) => (b.type === "tool_result" ? [b.content] : []))
      : [],
  );
}

describe("pruneToolOutputs", () => {
  const history: HistoryEntry[] = [
    entry.user("task"),
    ...entry.toolTurn("a", big("a")),
    ...entry.toolTurn("b", big("b")),
    ...entry.toolTurn("c", big("c")),
    ...entry.toolTurn("d", "small"),
  ];

  it("replaces old outputs with the note, newest protected first, and keeps every block", () => {
    const result = pruneToolOutputs(history, { keepFrom: 7, protectTokens: 1_500 });
    // d is in the tail; c fits the protected budget; b and a are pruned.
    expect(outputs(result.history)).toEqual([PRUNED_OUTPUT_NOTE, PRUNED_OUTPUT_NOTE, big("c"), "small"]);
    expect(result.pruned).toBe(2);
    expect(result.savedTokens).toBeGreaterThan(1_900);
    expect(historyProblems(result.history)).toEqual([]);
  });

  it("does not touch the input entries", () => {
    const before = JSON.stringify(history);
    const result = pruneToolOutputs(history, { keepFrom: 7, protectTokens: 0 });
    expect(JSON.stringify(history)).toBe(before);
    expect(result.history[0]).toBe(history[0]);
    expect(result.history[1]).toBe(history[1]);
    expect(result.history[2]).not.toBe(history[2]);
  });

  it("leaves the tail and small outputs alone, and does not prune twice", () => {
    const once = pruneToolOutputs(history, { keepFrom: 5, protectTokens: 0 });
    expect(outputs(once.history)).toEqual([PRUNED_OUTPUT_NOTE, PRUNED_OUTPUT_NOTE, big("c"), "small"]);
    const twice = pruneToolOutputs(once.history, { keepFrom: 5, protectTokens: 0 });
    expect(twice.pruned).toBe(0);
  });

  it("keeps is_error on a pruned error result", () => {
    const failing: HistoryEntry[] = [
      entry.user("task"),
      entry.assistant([{ type: "tool_use", id: "e", name: "Bash", input: {} }]),
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "e", content: big("e"), is_error: true }],
      },
    ];
    const result = pruneToolOutputs(failing, { keepFrom: 3, protectTokens: 0 });
    expect(result.history[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "e", content: PRUNED_OUTPUT_NOTE, is_error: true }],
    });
  });
});
