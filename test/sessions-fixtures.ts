import { randomUUID } from "node:crypto";
import type {
  AssistantContentBlock,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKMessage,
  SDKResultMessage,
  SDKToolProgressMessage,
  SDKUserMessage,
  ToolResultBlock,
  Usage,
} from "../src/protocol/index.js";

/** Builders for realistic SDKMessages, shared by the session tests and the benchmark's shape. */
export function usage(input: number, output: number): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

export function prompt(
  sessionId: string,
  text: string,
  extra: Partial<SDKUserMessage> = {},
): SDKUserMessage & { uuid: string } {
  return {
    type: "user",
    uuid: randomUUID(),
    session_id: sessionId,
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    ...extra,
  };
}

export function assistant(
  sessionId: string,
  content: AssistantContentBlock[],
  extra: Partial<Omit<SDKAssistantMessage, "message">> & {
    stop_reason?: SDKAssistantMessage["message"]["stop_reason"];
    usage?: Usage;
  } = {},
): SDKAssistantMessage {
  const { stop_reason, usage: tokens, ...rest } = extra;
  const hasTools = content.some((block) => block.type === "tool_use");
  return {
    type: "assistant",
    uuid: randomUUID(),
    session_id: sessionId,
    message: {
      id: `msg_api_${randomUUID()}`,
      type: "message",
      role: "assistant",
      model: "anthropic/claude-sonnet-4-5",
      content,
      stop_reason: stop_reason === undefined ? (hasTools ? "tool_use" : "end_turn") : stop_reason,
      stop_sequence: null,
      usage: tokens ?? usage(100, 20),
    },
    parent_tool_use_id: null,
    ...rest,
  };
}

export function toolUse(id: string, name: string, input: unknown): AssistantContentBlock {
  return { type: "tool_use", id, name, input };
}

export function toolResults(
  sessionId: string,
  results: Array<Omit<ToolResultBlock, "type">>,
  extra: Partial<SDKUserMessage> = {},
): SDKUserMessage {
  return {
    type: "user",
    uuid: randomUUID(),
    session_id: sessionId,
    message: {
      role: "user",
      content: results.map((result) => ({ type: "tool_result" as const, ...result })),
    },
    parent_tool_use_id: null,
    isSynthetic: true,
    ...extra,
  };
}

export function progress(sessionId: string, toolUseId: string, toolName: string, elapsed = 0): SDKToolProgressMessage {
  return {
    type: "tool_progress",
    uuid: randomUUID(),
    session_id: sessionId,
    tool_use_id: toolUseId,
    tool_name: toolName,
    parent_tool_use_id: null,
    elapsed_time_seconds: elapsed,
  };
}

export function compactBoundary(sessionId: string): SDKCompactBoundaryMessage {
  return {
    type: "system",
    subtype: "compact_boundary",
    uuid: randomUUID(),
    session_id: sessionId,
    compact_metadata: { trigger: "auto", pre_tokens: 150_000, post_tokens: 9_000 },
  };
}

export function result(sessionId: string, totalCostUsd: number, tokens: Usage): SDKResultMessage {
  return {
    type: "result",
    subtype: "success",
    uuid: randomUUID(),
    session_id: sessionId,
    is_error: false,
    num_turns: 2,
    duration_ms: 1234,
    duration_api_ms: 1000,
    total_cost_usd: totalCostUsd,
    usage: tokens,
    modelUsage: {},
    result: "Done.",
    stop_reason: "end_turn",
    permission_denials: [],
    terminal_reason: "completed",
  };
}

export function streamEvent(sessionId: string): SDKMessage {
  return {
    type: "stream_event",
    uuid: randomUUID(),
    session_id: sessionId,
    event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
    parent_tool_use_id: null,
  };
}

/** A clock that moves only when told to: deterministic times without sleeping. */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

/**
 * One realistic turn: a prompt, an assistant message that thinks, writes and calls Write
 * and Read, progress for both, results (Write ok, Read failed), a final answer, a result.
 */
export function sampleTurn(sessionId: string, prefix = "call") {
  const write = `${prefix}_write`;
  const read = `${prefix}_read`;
  return [
    prompt(sessionId, "Create hello.txt and then show me config.json\nplease"),
    assistant(
      sessionId,
      [
        { type: "thinking", thinking: "I should write the file first.", signature: "sig" },
        { type: "text", text: "I'll create the file." },
        toolUse(write, "Write", { file_path: "/repo/hello.txt", content: "hello\u0000world ✓" }),
        toolUse(read, "Read", { file_path: "/repo/config.json" }),
      ],
      { cost_usd: 0.01, usage: usage(1000, 50) },
    ),
    progress(sessionId, write, "Write"),
    progress(sessionId, read, "Read"),
    toolResults(sessionId, [
      { tool_use_id: write, content: "File created successfully at /repo/hello.txt" },
      { tool_use_id: read, content: [{ type: "text", text: "ENOENT: no such file" }], is_error: true },
    ]),
    assistant(sessionId, [{ type: "text", text: "Created hello.txt; config.json does not exist." }], {
      cost_usd: 0.02,
      usage: usage(1200, 30),
    }),
    result(sessionId, 0.03, usage(2200, 80)),
  ] satisfies SDKMessage[];
}
