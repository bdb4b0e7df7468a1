import { describe, expect, it } from "vitest";
import { compactedText, compactionContent } from "./compaction-item.js";
import { RequestError } from "./errors.js";

describe("compaction items", () => {
  it("round-trips the compacted text, opaque on the wire", () => {
    const content = compactionContent("We launch on Tuesday.");
    expect(content).not.toContain("Tuesday");
    expect(compactedText(content, "input[0].encrypted_content")).toBe("We launch on Tuesday.");
  });

  it.each([
    ["not ours", "opaque-blob"],
    ["our prefix, not base64 JSON", "gyre-compaction-v1.!!!"],
    ["JSON of the wrong shape", `gyre-compaction-v1.${Buffer.from('{"text":5}').toString("base64url")}`],
  ])("refuses content that is %s with a 400 on its param", (_, content) => {
    const attempt = () => compactedText(content, "input[2].encrypted_content");
    expect(attempt).toThrow(RequestError);
    expect(attempt).toThrow(expect.objectContaining({ statusCode: 400, param: "input[2].encrypted_content" }));
  });
});
