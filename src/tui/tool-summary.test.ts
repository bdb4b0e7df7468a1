import { describe, expect, it } from "vitest";
import { describeInput, describeOutcome } from "./tool-summary.js";

describe("ToolSearch in the transcript", () => {
  it("shows the query and how many tools the search loaded", () => {
    expect(describeInput("ToolSearch", { query: "select:mcp__a__b", max_results: 3 }, "/")).toBe("select:mcp__a__b");
    const result =
      'Loaded 2 tools: …\n<functions>\n<function>{"name":"a"}</function>\n<function>{"name":"b"}</function>\n</functions>';
    expect(describeOutcome("ToolSearch", result, false)).toBe("(loaded 2 tools)");
    expect(describeOutcome("ToolSearch", "No matching deferred tools found", false)).toBe("(no match)");
  });
});
