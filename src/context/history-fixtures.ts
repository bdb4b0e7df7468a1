import type { AssistantContentBlock, HistoryEntry, Usage } from "../protocol/index.js";

/** Builders of history entries for tests of this folder and of compaction. */
export const entry = {
  user(text: string): HistoryEntry {
    return { role: "user", content: text };
  },
  assistant(content: AssistantContentBlock[], usage: Partial<Usage> = {}): HistoryEntry {
    return {
      role: "assistant",
      message: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: "message",
        role: "assistant",
        model: "test-model",
        content,
        stop_reason: content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          ...usage,
        },
      },
    };
  },
  text(text: string, usage: Partial<Usage> = {}): HistoryEntry {
    return entry.assistant([{ type: "text", text }], usage);
  },
  /** An assistant tool call and the user entry with its result. */
  toolTurn(id: string, output: string, usage: Partial<Usage> = {}): [HistoryEntry, HistoryEntry] {
    return [
      entry.assistant([{ type: "tool_use", id, name: "Read", input: { file_path: `${id}.ts` } }], usage),
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
    ];
  },
};
