import { describe, expect, it } from "vitest";
import { toToolResult } from "./call-result.js";

describe("MCP call results as Gyre tool results", () => {
  it("text is text, joined by lines", () => {
    const result = toToolResult({
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
    });
    expect(result).toEqual({ content: "a\nb" });
  });

  it("images are image blocks, beside the text", () => {
    const result = toToolResult({
      content: [
        { type: "text", text: "see" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
    });
    expect(result.content).toEqual([
      { type: "text", text: "see" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
    ]);
  });

  it("isError is an error; audio, binary resources and links are named, text resources shown", () => {
    const result = toToolResult({
      isError: true,
      content: [
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "hello" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/zip" } },
        { type: "resource_link", uri: "file:///c", name: "c" },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      [
        "[audio (audio/wav) not shown: the model cannot take audio]",
        "hello",
        "[resource file:///b.bin (application/zip) not shown]",
        "[resource link: file:///c (c)]",
      ].join("\n"),
    );
  });

  it("structuredContent is the result's data, and the text when there is no content", () => {
    expect(toToolResult({ content: [], structuredContent: { sum: 5 } })).toEqual({
      content: '{"sum":5}',
      data: { sum: 5 },
    });
  });
});
