import { describe, expect, it } from "vitest";
import { TextProtocolEmitter } from "./emitter.js";

describe("TextProtocolEmitter", () => {
  it("numbers calls in order, gives each text run its own id and reports tool-calls", () => {
    const emitter = new TextProtocolEmitter("call_x");
    const parts = [
      ...emitter.push('A<tool>{"tool_name":"a"}</tool>B<thinking>t</thinking>'),
      ...emitter.push('<tool>{"tool_name":"b","arguments":{"k":1}}</tool>'),
      ...emitter.end(),
    ];
    expect(parts).toEqual([
      { type: "text-start", id: "text-protocol-text-0" },
      { type: "text-delta", id: "text-protocol-text-0", delta: "A" },
      { type: "text-end", id: "text-protocol-text-0" },
      { type: "tool-call", toolCallId: "call_x_0", toolName: "a", input: "{}" },
      { type: "text-start", id: "text-protocol-text-1" },
      { type: "text-delta", id: "text-protocol-text-1", delta: "B" },
      { type: "text-end", id: "text-protocol-text-1" },
      { type: "reasoning-start", id: "text-protocol-reasoning-2" },
      { type: "reasoning-delta", id: "text-protocol-reasoning-2", delta: "t" },
      { type: "reasoning-end", id: "text-protocol-reasoning-2" },
      { type: "tool-call", toolCallId: "call_x_1", toolName: "b", input: '{"k":1}' },
    ]);
    expect(emitter.calls).toBe(2);
    expect(emitter.finishReason({ unified: "stop", raw: "stop" })).toEqual({
      unified: "tool-calls",
      raw: "tool_use",
    });
  });

  it("keeps the model's finish reason when no block was read", () => {
    const emitter = new TextProtocolEmitter("call_x");
    emitter.push("plain answer");
    emitter.end();
    expect(emitter.finishReason({ unified: "length", raw: "length" })).toEqual({
      unified: "length",
      raw: "length",
    });
  });

  it("marks a malformed call with its raw text and problem", () => {
    const emitter = new TextProtocolEmitter("call_x");
    const parts = [...emitter.push('<tool>{"tool_name": "a", "arguments": {'), ...emitter.end()];
    expect(parts).toEqual([
      {
        type: "tool-call",
        toolCallId: "call_x_0",
        toolName: "a",
        input: '{"tool_name": "a", "arguments": {',
        providerMetadata: {
          textProtocol: {
            raw: '{"tool_name": "a", "arguments": {',
            closed: false,
            problem: "The <tool> block was cut off before its closing </tool> tag.",
          },
        },
      },
    ]);
  });

  it("drops a half-written call when the stream broke off, but keeps the text", () => {
    const emitter = new TextProtocolEmitter("call_x");
    const parts = [...emitter.push('Hi <tool>{"tool_name": "a"'), ...emitter.end({ calls: false })];
    expect(parts.map((part) => part.type)).toEqual(["text-start", "text-delta", "text-end"]);
    expect(emitter.calls).toBe(0);
  });
});
