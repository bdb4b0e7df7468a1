import type {
  MockCitation,
  MockCompaction,
  MockContent,
  MockStopReason,
  MockTurn,
  MockUsage,
  MockWebSearchContent,
} from "./script.js";

/** A tool call ready for the wire: `arguments` is the exact text the client receives. */
export interface AnswerToolCall {
  type: "tool_use";
  /** Id from the script, if any; formats generate `<prefix>_mock_<turn>_<callIndex>` otherwise. */
  id: string | undefined;
  callIndex: number;
  name: string;
  arguments: string;
  /** Characters per streamed argument delta. */
  chunkSize: number | undefined;
  /** A freeform tool's raw input: the Responses API sends a `custom_tool_call`, the others `{"input": …}` as arguments. */
  freeformInput?: string;
}

/** A search the provider ran: `searchIndex` numbers the answer's searches (for ids). */
export interface AnswerWebSearch {
  type: "web_search";
  id: string | undefined;
  searchIndex: number;
  query: string;
  results: NonNullable<MockWebSearchContent["results"]>;
  error: string | undefined;
}

export type AnswerBlock =
  | { type: "text"; text: string; citations?: MockCitation[] }
  | { type: "thinking"; thinking: string; signature: string }
  | AnswerToolCall
  | AnswerWebSearch;

/** One scripted turn resolved against one request: what every wire format renders. */
export interface MockAnswer {
  turn: number;
  /** Request sequence number, used in response ids. */
  seq: number;
  /** The model id the request asked for, echoed back. */
  model: string;
  blocks: AnswerBlock[];
  stopReason: MockStopReason;
  usage: Required<MockUsage>;
  /** Anthropic's server-side compaction before the answer, with its tokens resolved. */
  compaction: Required<MockCompaction> | undefined;
  /** Seconds since the epoch, for `created` fields. */
  created: number;
  request: Record<string, unknown>;
}

/** Resolve defaults (ids, stop reason, usage, signatures) of `turn` for one request. */
export function buildAnswer(options: {
  turn: MockTurn;
  turnIndex: number;
  seq: number;
  request: Record<string, unknown>;
  /** The model the request named outside its body (Gemini's path); else the body's `model`. */
  model?: string;
  now: number;
}): MockAnswer {
  const { turn, turnIndex, request } = options;
  const counters = { call: 0, thinking: 0, search: 0 };
  const blocks = (turn.content ?? []).map((content) => resolveBlock(content, turnIndex, counters));
  const hasToolCall = blocks.some((block) => block.type === "tool_use");
  const usage = resolveUsage(turn.usage, request, blocks);
  return {
    turn: turnIndex,
    seq: options.seq,
    model: options.model ?? (typeof request.model === "string" ? request.model : "mock-model"),
    blocks,
    stopReason: turn.stopReason ?? (hasToolCall ? "tool_use" : "end_turn"),
    usage,
    compaction: turn.compaction && {
      summary: turn.compaction.summary,
      inputTokens: turn.compaction.inputTokens ?? usage.input_tokens,
      outputTokens: turn.compaction.outputTokens ?? Math.max(1, estimateTokens(turn.compaction.summary.length)),
    },
    created: Math.floor(options.now / 1000),
    request,
  };
}

function resolveBlock(
  content: MockContent,
  turnIndex: number,
  counters: { call: number; thinking: number; search: number },
): AnswerBlock {
  switch (content.type) {
    case "web_search":
      return {
        type: "web_search",
        id: content.id,
        searchIndex: counters.search++,
        query: content.query,
        results: content.results ?? [],
        error: content.error,
      };
    case "text":
      return content;
    case "thinking":
      return {
        type: "thinking",
        thinking: content.thinking,
        signature: content.signature ?? `mock_signature_${turnIndex}_${counters.thinking++}`,
      };
    case "tool_use":
      return {
        type: "tool_use",
        id: content.id,
        callIndex: counters.call++,
        name: content.name,
        arguments: content.rawInput ?? JSON.stringify(content.input ?? {}),
        chunkSize: content.chunkSize,
      };
    case "custom_tool_call":
      return {
        type: "tool_use",
        id: content.id,
        callIndex: counters.call++,
        name: content.name,
        arguments: JSON.stringify({ input: content.input }),
        chunkSize: content.chunkSize,
        freeformInput: content.input,
      };
  }
}

/** The wire id of a tool call: the scripted one, or a deterministic `<prefix>_mock_<turn>_<i>`. */
export function toolCallId(answer: MockAnswer, call: AnswerToolCall, prefix: "toolu" | "call"): string {
  return call.id ?? `${prefix}_mock_${answer.turn}_${call.callIndex}`;
}

/** The concatenated text blocks of an answer. */
export function answerText(answer: MockAnswer): string {
  return answer.blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}

function resolveUsage(
  usage: MockUsage | undefined,
  request: Record<string, unknown>,
  blocks: AnswerBlock[],
): Required<MockUsage> {
  const answerChars = blocks.reduce((sum, block) => sum + blockChars(block), 0);
  const reasoning = usage?.reasoning_tokens ?? 0;
  return {
    input_tokens: usage?.input_tokens ?? estimateTokens(JSON.stringify(request).length),
    // Reasoning tokens are output tokens: there are at least as many of those.
    output_tokens: usage?.output_tokens ?? Math.max(1, reasoning + estimateTokens(answerChars)),
    cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
    reasoning_tokens: Math.min(reasoning, usage?.output_tokens ?? Number.POSITIVE_INFINITY),
  };
}

function blockChars(block: AnswerBlock): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "thinking":
      return block.thinking.length;
    case "tool_use":
      return block.name.length + block.arguments.length;
    case "web_search":
      return block.query.length;
  }
}

/** Searches of the answer that ran (a failed search is not billed). */
export function webSearchCount(answer: MockAnswer): number {
  return answer.blocks.filter((block) => block.type === "web_search" && block.error === undefined).length;
}

function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Split text into word-sized stream deltas (whitespace stays attached to the word before it). */
export function splitText(text: string): string[] {
  if (text.length === 0) return [];
  const pieces = text.match(/\s*\S+\s*/g);
  return pieces && pieces.join("") === text ? pieces : [text];
}

/** Split tool-call arguments into fixed-size pieces, so clients must accumulate them. */
export function splitArguments(text: string, size = 16): string[] {
  if (text.length === 0) return [];
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
