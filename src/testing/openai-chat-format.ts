import { type AnswerToolCall, answerText, type MockAnswer, splitArguments, splitText, toolCallId } from "./answer.js";
import { chatUsage, openaiError } from "./openai-shared.js";
import type { MockStopReason } from "./script.js";
import { countRuns, dataEvent, isRecord, systemMessagesText, type WireFormat } from "./wire-format.js";

/**
 * `refusal` maps to `content_filter`: both @ai-sdk/openai and @ai-sdk/openai-compatible
 * turn that into the unified `content-filter` (the `refusal` message field is read only by
 * @ai-sdk/openai), so a refusal never looks like a normal stop.
 */
const FINISH_REASONS: Record<MockStopReason, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
  pause_turn: "stop",
};

/** OpenAI Chat Completions (`POST /v1/chat/completions`); thinking is sent as `reasoning_content`. */
export const openaiChatFormat: WireFormat = {
  format: "openai-chat",

  assistantRuns(request) {
    return countRuns(request.messages, (message) => message.role === "assistant");
  },

  systemText: (request) => systemMessagesText(request.messages),

  error: openaiError,

  json(answer) {
    const text = answerText(answer);
    const reasoning = reasoningText(answer);
    const toolCalls = calls(answer).map((call) => ({
      id: toolCallId(answer, call, "call"),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
    return {
      ...envelope(answer, "chat.completion"),
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: text.length > 0 ? text : null,
            refusal: null,
            ...(reasoning.length > 0 && { reasoning_content: reasoning }),
            ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
          },
          logprobs: null,
          finish_reason: FINISH_REASONS[answer.stopReason],
        },
      ],
      usage: chatUsage(answer),
    };
  },

  frames(answer) {
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      dataEvent({
        ...envelope(answer, "chat.completion.chunk"),
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      });
    const frames = [chunk({ role: "assistant" })];
    // One push per delta: spreading a megabyte answer's deltas into push() overflows the stack.
    for (const block of answer.blocks) {
      if (block.type === "text") for (const content of splitText(block.text)) frames.push(chunk({ content }));
      if (block.type === "thinking") {
        for (const reasoning_content of splitText(block.thinking)) frames.push(chunk({ reasoning_content }));
      }
      if (block.type === "tool_use") for (const delta of toolCallChunks(answer, block)) frames.push(chunk(delta));
    }
    frames.push(chunk({}, FINISH_REASONS[answer.stopReason]));
    const streamOptions = answer.request.stream_options;
    if (isRecord(streamOptions) && streamOptions.include_usage === true) {
      frames.push(dataEvent({ ...envelope(answer, "chat.completion.chunk"), choices: [], usage: chatUsage(answer) }));
    }
    frames.push(dataEvent("[DONE]"));
    return frames;
  },
};

function envelope(answer: MockAnswer, object: string) {
  return {
    id: `chatcmpl-mock-${answer.seq}`,
    object,
    created: answer.created,
    model: answer.model,
    system_fingerprint: null,
  };
}

function calls(answer: MockAnswer): AnswerToolCall[] {
  return answer.blocks.filter((block): block is AnswerToolCall => block.type === "tool_use");
}

function reasoningText(answer: MockAnswer): string {
  return answer.blocks.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join("");
}

/** The first delta of a call names it; the rest carry argument pieces under the same index. */
function toolCallChunks(answer: MockAnswer, call: AnswerToolCall): Array<Record<string, unknown>> {
  const index = call.callIndex;
  return [
    {
      tool_calls: [
        {
          index,
          id: toolCallId(answer, call, "call"),
          type: "function",
          function: { name: call.name, arguments: "" },
        },
      ],
    },
    ...splitArguments(call.arguments, call.chunkSize).map((piece) => ({
      tool_calls: [{ index, function: { arguments: piece } }],
    })),
  ];
}
