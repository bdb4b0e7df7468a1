import { describe, expect, it } from "vitest";
import { COLLAPSED_DIFF_ROWS, toolDetail } from "./tool-detail.js";
import type { ToolItem } from "./transcript.js";

const call = (name: string, input: Record<string, unknown>, extra: Partial<ToolItem> = {}): ToolItem => ({
  kind: "tool",
  id: "t",
  name,
  about: "",
  state: "done",
  startedAt: 0,
  outcome: "",
  input,
  output: "",
  ...extra,
});

describe("toolDetail", () => {
  it("shows an Edit as a diff of its strings, from the moment its input is known", () => {
    const edit = call(
      "Edit",
      { file_path: "/p/a.ts", old_string: "a\nb\nc", new_string: "a\nB\nc" },
      { state: "pending" },
    );
    expect(toolDetail(edit, false)).toEqual({
      kind: "diff",
      rows: [
        { kind: "same", text: "a" },
        { kind: "removed", text: "b" },
        { kind: "added", text: "B" },
        { kind: "same", text: "c" },
      ],
    });
  });

  it("shows a Write as added lines, capped while collapsed and whole when expanded", () => {
    const content = Array.from({ length: 40 }, (_, i) => `row ${i}`).join("\n");
    const write = call("Write", { file_path: "/p/w.txt", content });
    const collapsed = toolDetail(write, false);
    expect(collapsed.kind === "diff" && collapsed.rows).toHaveLength(COLLAPSED_DIFF_ROWS);
    expect(collapsed.kind === "diff" && collapsed.rows.at(-1)).toEqual({
      kind: "more",
      count: 40 - COLLAPSED_DIFF_ROWS + 1,
    });
    const expanded = toolDetail(write, true);
    expect(expanded.kind === "diff" && expanded.rows).toHaveLength(40);
  });

  it("shows each edit of a MultiEdit, apart", () => {
    const multi = call("MultiEdit", {
      file_path: "/p/m.ts",
      edits: [
        { old_string: "one", new_string: "uno" },
        { old_string: "two", new_string: "dos" },
      ],
    });
    expect(toolDetail(multi, false)).toEqual({
      kind: "diff",
      rows: [
        { kind: "removed", text: "one" },
        { kind: "added", text: "uno" },
        { kind: "gap" },
        { kind: "removed", text: "two" },
        { kind: "added", text: "dos" },
      ],
    });
  });

  it("shows no diff for a failed edit (nothing changed), only its whole error when expanded", () => {
    const failed = call("Edit", { old_string: "x", new_string: "y" }, { state: "failed", output: "String not found" });
    expect(toolDetail(failed, false)).toEqual({ kind: "none" });
    expect(toolDetail(failed, true)).toEqual({ kind: "output", lines: ["String not found"], more: 0 });
  });

  it("shows other calls' whole output and TodoWrite's list only when expanded", () => {
    const bash = call("Bash", { command: "ls" }, { output: "a\nb\n" });
    expect(toolDetail(bash, false)).toEqual({ kind: "none" });
    expect(toolDetail(bash, true)).toEqual({ kind: "output", lines: ["a", "b"], more: 0 });
    const todos = [{ content: "Fix", status: "pending", activeForm: "Fixing" }];
    expect(toolDetail(call("TodoWrite", { todos }), false)).toEqual({ kind: "none" });
    expect(toolDetail(call("TodoWrite", { todos }), true)).toEqual({ kind: "todos", todos });
  });
});
