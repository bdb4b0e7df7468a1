import { describe, expect, it } from "vitest";
import { entry } from "./history-fixtures.js";
import { renderTranscript } from "./transcript.js";

describe("renderTranscript", () => {
  it("renders turns, tool calls and results, and shortens big outputs", () => {
    const text = renderTranscript(
      [
        entry.user("fix it"),
        entry.assistant([
          { type: "thinking", thinking: "private" },
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "t1", name: "Read", input: { file_path: "a.ts" } },
        ]),
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: "a".repeat(50), is_error: true }],
        },
      ],
      { maxToolOutputChars: 20 },
    );
    expect(text).toMatchInlineSnapshot(`
      "[User]
      fix it

      [Assistant]
      Looking.
      [Tool call Read] {"file_path":"a.ts"}

      [User]
      [Tool error from Read]
      aaaaaaaaaa
      [... 30 characters cut ...]
      aaaaaaaaaa"
    `);
  });

  it("drops the oldest entries to fit maxChars and says so", () => {
    const entries = [entry.user("first".repeat(50)), entry.text("second".repeat(50)), entry.user("third")];
    const text = renderTranscript(entries, { maxChars: 400 });
    expect(text).not.toContain("first");
    expect(text).toContain("[1 earlier entries omitted to fit the context window]");
    expect(text).toContain("third");
  });
});
