import type { MockContent, MockFault, MockTurn } from "./script.js";

/** What a turn has besides its content: usage, stop reason, faults, delays. */
export type MockTurnOptions = Omit<MockTurn, "content">;

/**
 * Builders for script turns, e.g.
 * `turns: [mockTurn.toolUse("Read", { file_path: "a.ts" }), mockTurn.text("done")]`.
 */
export const mockTurn = {
  /** A turn that answers with text. */
  text(text: string, options: MockTurnOptions = {}): MockTurn {
    return { ...options, content: [{ type: "text", text }] };
  },

  /** A turn that calls one tool (stop reason `tool_use`). */
  toolUse(name: string, input: unknown = {}, options: MockTurnOptions & { id?: string } = {}): MockTurn {
    const { id, ...turn } = options;
    return { ...turn, content: [{ type: "tool_use", name, input, ...(id !== undefined && { id }) }] };
  },

  /** A turn that calls one freeform (OpenAI `custom`) tool with raw text (stop reason `tool_use`). */
  customToolCall(name: string, input: string, options: MockTurnOptions & { id?: string } = {}): MockTurn {
    const { id, ...turn } = options;
    return { ...turn, content: [{ type: "custom_tool_call", name, input, ...(id !== undefined && { id }) }] };
  },

  /** A turn made of the given content blocks, in order. */
  of(content: MockContent[], options: MockTurnOptions = {}): MockTurn {
    return { ...options, content };
  },
};

/** Builders for faults, e.g. `mockTurn.text("hi", { faults: [mockFault.rateLimit(2)] })`. */
export const mockFault = {
  /** HTTP 429 with `retry-after` seconds. */
  rateLimit(retryAfter?: number): MockFault {
    return { type: "http", status: 429, ...(retryAfter !== undefined && { retryAfter }) };
  },
  /** Anthropic's 529 overloaded. */
  overloaded(): MockFault {
    return { type: "http", status: 529 };
  },
  http(status: number, message?: string): MockFault {
    return { type: "http", status, ...(message !== undefined && { message }) };
  },
  /** Destroy the connection after `afterChunks` stream events (default: half of them). */
  cut(afterChunks?: number): MockFault {
    return { type: "cut", ...(afterChunks !== undefined && { afterChunks }) };
  },
  delay(ms: number): MockFault {
    return { type: "delay", ms };
  },
  /** Stream `afterChunks` events (default 1), then hold the connection without a word until the client leaves. */
  stall(afterChunks?: number): MockFault {
    return { type: "stall", ...(afterChunks !== undefined && { afterChunks }) };
  },
};
