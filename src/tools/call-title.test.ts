import { describe, expect, it } from "vitest";
import { callTitle, TITLE_MAX_CHARS } from "./call-title.js";

describe("callTitle", () => {
  it("is the field that says what the call is about, else the first text", () => {
    expect(callTitle({ command: "npm test", description: "Run the tests" })).toBe("npm test");
    expect(callTitle({ path: "src", pattern: "TODO" })).toBe("TODO");
    expect(callTitle({ file_path: "/a/b.ts", offset: 3 })).toBe("/a/b.ts");
    expect(callTitle({ prompt: "Look at everything", description: "look around" })).toBe("look around");
    expect(callTitle({ n: 1, label: "first", other: "second" })).toBe("first");
  });

  it("is one line of at most TITLE_MAX_CHARS characters, and empty when there is no text", () => {
    expect(callTitle({ command: "  echo a\n  echo b  " })).toBe("echo a echo b");
    const long = callTitle({ command: "x".repeat(200) });
    expect(long).toHaveLength(TITLE_MAX_CHARS);
    expect(long.endsWith("…")).toBe(true);
    expect(callTitle({ todos: [{ content: "a" }] })).toBe("");
    expect(callTitle("not an object")).toBe("");
    expect(callTitle(null)).toBe("");
  });
});
