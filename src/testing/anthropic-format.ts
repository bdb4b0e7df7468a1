import {
  type AnswerBlock,
  type AnswerWebSearch,
  type MockAnswer,
  splitArguments,
  splitText,
  toolCallId,
  webSearchCount,
} from "./answer.js";
import type { MockCitation } from "./script.js";
import { countRuns, namedEvent, plainText, type WireError, type WireFormat } from "./wire-format.js";

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** Anthropic Messages API (`POST /v1/messages`). */
export const anthropicFormat: WireFormat = {
  format: "anthropic",

  assistantRuns(request) {
    return countRuns(request.messages, (message) => message.role === "assistant");
  },

  systemText: (request) => plainText(request.system),

  error(status: number, message: string): WireError {
    const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
    return { status, body: { type: "error", error: { type, message } } };
  },

  json(answer) {
    return {
      ...messageEnvelope(answer),
      content: [
        ...(answer.compaction ? [{ type: "compaction", content: answer.compaction.summary }] : []),
        ...wireBlocks(answer.blocks).map((block) => wholeBlock(answer, block)),
      ],
      stop_reason: answer.stopReason,
      stop_sequence: stopSequence(answer),
      usage: finalUsage(answer),
    };
  },

  frames(answer) {
    // The searches are counted once they ran: in the final usage, not the message's start.
    const { output_tokens: _output, reasoning_tokens: _reasoning, ...inputUsage } = answer.usage;
    const frames = [
      namedEvent("message_start", {
        type: "message_start",
        message: {
          ...messageEnvelope(answer),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...inputUsage, output_tokens: 1 },
        },
      }),
      namedEvent("ping", { type: "ping" }),
    ];
    // A compaction block comes first, as Anthropic sends it: the content after it moves up one index.
    const first = answer.compaction ? 1 : 0;
    if (answer.compaction) {
      frames.push(
        namedEvent("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "compaction", content: "" },
        }),
        namedEvent("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "compaction_delta", content: answer.compaction.summary },
        }),
        namedEvent("content_block_stop", { type: "content_block_stop", index: 0 }),
      );
    }
    wireBlocks(answer.blocks).forEach((block, blockIndex) => {
      const index = first + blockIndex;
      frames.push(
        namedEvent("content_block_start", {
          type: "content_block_start",
          index,
          content_block: startBlock(answer, block),
        }),
      );
      for (const delta of blockDeltas(block)) {
        frames.push(namedEvent("content_block_delta", { type: "content_block_delta", index, delta }));
      }
      frames.push(namedEvent("content_block_stop", { type: "content_block_stop", index }));
    });
    frames.push(
      namedEvent("message_delta", {
        type: "message_delta",
        delta: { stop_reason: answer.stopReason, stop_sequence: stopSequence(answer) },
        usage: finalUsage(answer),
      }),
      namedEvent("message_stop", { type: "message_stop" }),
    );
    return frames;
  },
};

function messageEnvelope(answer: MockAnswer) {
  return { id: `msg_mock_${answer.seq}`, type: "message", role: "assistant", model: answer.model };
}

/**
 * The answer's usage; after a server-side compaction with its `iterations`, the compaction's and
 * the message's own, as Anthropic reports them (the top-level counts are the message's).
 */
function finalUsage(answer: MockAnswer) {
  const { compaction } = answer;
  const usage = anthropicUsage(answer);
  if (!compaction) return usage;
  return {
    ...usage,
    iterations: [
      { type: "compaction", input_tokens: compaction.inputTokens, output_tokens: compaction.outputTokens },
      { type: "message", input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
    ],
  };
}

function stopSequence(answer: MockAnswer): string | null {
  if (answer.stopReason !== "stop_sequence") return null;
  const sequences = answer.request.stop_sequences;
  return Array.isArray(sequences) && typeof sequences[0] === "string" ? sequences[0] : null;
}

/**
 * A provider's search is two blocks on Anthropic's wire: the `server_tool_use` call, then its
 * `web_search_tool_result`.
 */
type WireBlock = AnswerBlock | { type: "web_search_tool_result"; search: AnswerWebSearch };

function wireBlocks(blocks: AnswerBlock[]): WireBlock[] {
  return blocks.flatMap((block): WireBlock[] =>
    block.type === "web_search" ? [block, { type: "web_search_tool_result", search: block }] : [block],
  );
}

function searchId(answer: MockAnswer, search: AnswerWebSearch): string {
  return search.id ?? `srvtoolu_mock_${answer.turn}_${search.searchIndex}`;
}

/** The result block, whole: Anthropic streams it in its `content_block_start`. */
function searchResult(answer: MockAnswer, search: AnswerWebSearch) {
  return {
    type: "web_search_tool_result",
    tool_use_id: searchId(answer, search),
    content:
      search.error === undefined
        ? search.results.map((page, index) => ({
            type: "web_search_result",
            title: page.title,
            url: page.url,
            encrypted_content: `mock_encrypted_${answer.turn}_${search.searchIndex}_${index}`,
            page_age: page.page_age ?? null,
          }))
        : { type: "web_search_tool_result_error", error_code: search.error },
  };
}

/** A text's citations as Anthropic's `web_search_result_location`s. */
function citations(text: string, cited: MockCitation[]) {
  return cited.map((citation, index) => ({
    type: "web_search_result_location",
    cited_text: citation.cited_text ?? text,
    url: citation.url,
    title: citation.title,
    encrypted_index: `mock_index_${index}`,
  }));
}

function wholeBlock(answer: MockAnswer, block: WireBlock) {
  if (block.type === "web_search") {
    return { type: "server_tool_use", id: searchId(answer, block), name: "web_search", input: { query: block.query } };
  }
  if (block.type === "web_search_tool_result") return searchResult(answer, block.search);
  if (block.type === "text") {
    return block.citations
      ? { type: "text", text: block.text, citations: citations(block.text, block.citations) }
      : { type: "text", text: block.text };
  }
  if (block.type !== "tool_use") return block;
  return {
    type: "tool_use",
    id: toolCallId(answer, block, "toolu"),
    name: block.name,
    input: wholeInput(block.arguments),
  };
}

/**
 * A whole (non-streamed) message carries the input as a JSON value, so malformed arguments
 * cannot be sent verbatim: they are sent as a JSON string holding the raw text.
 */
function wholeInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function startBlock(answer: MockAnswer, block: WireBlock) {
  switch (block.type) {
    case "text":
      return block.citations ? { type: "text", text: "", citations: [] } : { type: "text", text: "" };
    case "web_search":
      return { type: "server_tool_use", id: searchId(answer, block), name: "web_search", input: {} };
    case "web_search_tool_result":
      return searchResult(answer, block.search);
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "tool_use":
      return { type: "tool_use", id: toolCallId(answer, block, "toolu"), name: block.name, input: {} };
  }
}

function blockDeltas(block: WireBlock): Array<Record<string, unknown>> {
  switch (block.type) {
    case "text":
      return [
        ...citations(block.text, block.citations ?? []).map((citation) => ({ type: "citations_delta", citation })),
        ...splitText(block.text).map((text) => ({ type: "text_delta", text })),
      ];
    case "web_search":
      return [{ type: "input_json_delta", partial_json: JSON.stringify({ query: block.query }) }];
    case "web_search_tool_result":
      return [];
    case "thinking":
      return [
        ...splitText(block.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: block.signature },
      ];
    case "tool_use":
      return splitArguments(block.arguments, block.chunkSize).map((partial_json) => ({
        type: "input_json_delta",
        partial_json,
      }));
  }
}

/**
 * The answer's usage as Anthropic reports it: its four counts (no reasoning tokens apart), and
 * the searches it ran (`server_tool_use`) when it ran any.
 */
function anthropicUsage(answer: MockAnswer) {
  const { reasoning_tokens: _reasoning, ...usage } = answer.usage;
  const searches = webSearchCount(answer);
  return searches > 0 ? { ...usage, server_tool_use: { web_search_requests: searches, web_fetch_requests: 0 } } : usage;
}
