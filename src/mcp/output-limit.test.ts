import { describe, expect, it } from "vitest";
import { mcpCallLimits } from "./call-limits.js";
import { limitOutput, MAX_IMAGE_BASE64_CHARS } from "./output-limit.js";

const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png", data: "AAAA" } };

describe("MCP output limit", () => {
  it("a result within the limit is the same object", () => {
    const result = { content: "x".repeat(400), data: { a: 1 } };
    expect(limitOutput(result, 100)).toBe(result);
  });

  it("text over the limit keeps its head, within the limit with the note; isError and data stay", () => {
    const limited = limitOutput({ content: "a".repeat(10_000), isError: true, data: 1 }, 1000);
    const text = limited.content as string;
    expect(text.startsWith("aaaa")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(4000);
    expect(text).toContain("about 2500 tokens, over the limit of 1000 tokens");
    expect(text).toMatch(/so \d+ characters of text were cut/);
    expect(limited).toMatchObject({ isError: true, data: 1 });
  });

  it("many small blocks count together; images count 1,600 tokens each and are dropped past the limit", () => {
    const blocks = [...Array(50).fill({ type: "text", text: "b".repeat(400) }), image];
    const limited = limitOutput({ content: blocks }, 2000);
    // What is left is text only, so it is one string, within the limit.
    expect(typeof limited.content).toBe("string");
    expect((limited.content as string).length).toBeLessThanOrEqual(8000);
    expect(limited.content).toContain("characters of text and 1 image were cut");
    // An image alone over a tiny limit is dropped too: it can never blow the context.
    const only = limitOutput({ content: [image, image] }, 1000);
    expect(only.content).toMatch(/2 images were cut/);
  });

  it("an image over 5 MiB of base64 is dropped whatever the limit: the provider would refuse the request", () => {
    const huge = { ...image, source: { ...image.source, data: "A".repeat(MAX_IMAGE_BASE64_CHARS + 1) } };
    const limited = limitOutput({ content: [{ type: "text", text: "see" }, huge, image] }, 1_000_000);
    expect(limited.content).toEqual([
      { type: "text", text: "see" },
      image,
      { type: "text", text: expect.stringContaining("too large, over the limit of 1000000 tokens") },
    ]);
  });
});

describe("MCP call limits from the environment", () => {
  it("reads MAX_MCP_OUTPUT_TOKENS and MCP_TOOL_TIMEOUT; ignores values that are not positive integers", () => {
    expect(mcpCallLimits({})).toEqual({ maxOutputTokens: 25_000 });
    expect(mcpCallLimits({ MAX_MCP_OUTPUT_TOKENS: "5000", MCP_TOOL_TIMEOUT: "1500" })).toEqual({
      maxOutputTokens: 5000,
      timeoutMs: 1500,
    });
    expect(mcpCallLimits({ MAX_MCP_OUTPUT_TOKENS: "-1", MCP_TOOL_TIMEOUT: "soon" })).toEqual({
      maxOutputTokens: 25_000,
    });
    expect(mcpCallLimits({ MAX_MCP_OUTPUT_TOKENS: "0", MCP_TOOL_TIMEOUT: "1e3" })).toEqual({ maxOutputTokens: 25_000 });
  });
});
