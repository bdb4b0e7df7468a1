import { type AnswerBlock, type MockAnswer, splitText } from "./answer.js";
import type { MockStopReason } from "./script.js";
import { countRuns, dataEvent, plainText, type WireError, type WireFormat } from "./wire-format.js";

/** Gemini's `status` names for HTTP statuses (google.rpc.Code). */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/**
 * Gemini ends a turn with tool calls as `STOP` too (clients see the calls); a refusal is a
 * safety stop, which clients report as filtered content.
 */
const FINISH_REASONS: Record<MockStopReason, string> = {
  end_turn: "STOP",
  stop_sequence: "STOP",
  tool_use: "STOP",
  max_tokens: "MAX_TOKENS",
  refusal: "SAFETY",
  pause_turn: "STOP",
};

/**
 * Gemini API (`POST /v1beta/models/{model}:generateContent`, and `:streamGenerateContent?alt=sse`
 * for streams, whose events are `data:` lines each holding a partial response). The model
 * answers as `role: "model"`; thoughts are text parts marked `thought: true`; tool calls are
 * whole `functionCall` parts (Gemini does not stream their arguments).
 */
export const geminiFormat: WireFormat = {
  format: "gemini",

  assistantRuns(request) {
    return countRuns(request.contents, (content) => content.role === "model");
  },

  systemText: (request) => plainText(request.systemInstruction),

  error(status: number, message: string): WireError {
    const name = STATUS_NAMES[status] ?? (status >= 500 ? "UNAVAILABLE" : "INVALID_ARGUMENT");
    return { status, body: { error: { code: status, message, status: name } } };
  },

  json(answer) {
    return {
      candidates: [
        {
          ...candidate({ role: "model", parts: answer.blocks.flatMap((block) => wholeParts(block)) }, answer),
          ...groundingOf(answer),
        },
      ],
      usageMetadata: usageMetadata(answer),
      modelVersion: answer.model,
      responseId: responseId(answer),
    };
  },

  frames(answer) {
    const chunk = (parts: Array<Record<string, unknown>>) =>
      dataEvent({
        candidates: [{ content: { role: "model", parts }, index: 0 }],
        modelVersion: answer.model,
        responseId: responseId(answer),
      });
    const frames: string[] = [];
    // One push per piece: spreading a megabyte answer's pieces into push() overflows the stack.
    for (const block of answer.blocks) for (const part of streamedParts(block)) frames.push(chunk([part]));
    frames.push(
      dataEvent({
        // Gemini sends an answer's grounding with its last chunk.
        candidates: [{ ...candidate({ role: "model", parts: [] }, answer), ...groundingOf(answer) }],
        usageMetadata: usageMetadata(answer),
        modelVersion: answer.model,
        responseId: responseId(answer),
      }),
    );
    return frames;
  },
};

function candidate(content: Record<string, unknown>, answer: MockAnswer) {
  return { content, finishReason: FINISH_REASONS[answer.stopReason], index: 0 };
}

function responseId(answer: MockAnswer): string {
  return `mock-response-${answer.seq}`;
}

/** Gemini counts cached tokens inside the prompt tokens; the script counts them apart (Anthropic's way). */
function usageMetadata(answer: MockAnswer) {
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } = answer.usage;
  const prompt = input_tokens + cache_read_input_tokens + cache_creation_input_tokens;
  // Gemini counts thoughts apart from the candidates' tokens; the script's output includes them.
  const thoughts = answer.usage.reasoning_tokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: output_tokens - thoughts,
    totalTokenCount: prompt + output_tokens,
    ...(cache_read_input_tokens > 0 && { cachedContentTokenCount: cache_read_input_tokens }),
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
  };
}

function wholeParts(block: AnswerBlock): Array<Record<string, unknown>> {
  switch (block.type) {
    case "text":
      return block.text.length > 0 ? [{ text: block.text }] : [];
    case "thinking":
      return [{ text: block.thinking, thought: true, thoughtSignature: block.signature }];
    case "tool_use":
      return [{ functionCall: { name: block.name, args: callArgs(block.arguments) } }];
    case "web_search":
      // Gemini's search (grounding) is not a part of the answer but its metadata (`groundingOf`).
      return [];
  }
}

/** Text and thoughts arrive word by word; the last piece of a thought carries its signature. */
function streamedParts(block: AnswerBlock): Array<Record<string, unknown>> {
  switch (block.type) {
    case "text":
      return splitText(block.text).map((text) => ({ text }));
    case "thinking": {
      const pieces = splitText(block.thinking);
      return pieces.map((text, index) => ({
        text,
        thought: true,
        ...(index === pieces.length - 1 && { thoughtSignature: block.signature }),
      }));
    }
    case "tool_use":
    case "web_search":
      return wholeParts(block);
  }
}

/**
 * The answer's searches as Gemini's `groundingMetadata`: the queries Google ran, the pages
 * (`groundingChunks[].web`), the entry point to Google's suggestions, and `groundingSupports`
 * tying the texts' cited words (UTF-8 byte offsets in the answer's text, as Gemini counts them)
 * to the pages. A failed search leaves no trace (Gemini reports none); no search, no metadata.
 */
function groundingOf(answer: MockAnswer): { groundingMetadata?: Record<string, unknown> } {
  const searches = answer.blocks.flatMap((block) =>
    block.type === "web_search" && block.error === undefined ? [block] : [],
  );
  if (searches.length === 0) return {};
  const pages: Array<{ uri: string; title: string }> = [];
  for (const search of searches) {
    for (const result of search.results) {
      if (!pages.some((page) => page.uri === result.url)) pages.push({ uri: result.url, title: result.title });
    }
  }
  const supports: Array<Record<string, unknown>> = [];
  let before = "";
  for (const block of answer.blocks) {
    if (block.type !== "text") continue;
    for (const citation of block.citations ?? []) {
      const chunk = pages.findIndex((page) => page.uri === citation.url);
      const cited = citation.cited_text ?? block.text;
      const at = block.text.indexOf(cited);
      if (chunk < 0 || at < 0) continue;
      const start = Buffer.byteLength(before + block.text.slice(0, at));
      const segment = {
        ...(start > 0 && { startIndex: start }),
        endIndex: start + Buffer.byteLength(cited),
        text: cited,
      };
      supports.push({ segment, groundingChunkIndices: [chunk] });
    }
    before += block.text;
  }
  const queries = searches.map((search) => search.query);
  return {
    groundingMetadata: {
      searchEntryPoint: { renderedContent: `<div class="mock-search-suggestions">${queries.join(" · ")}</div>` },
      groundingChunks: pages.map((page) => ({ web: page })),
      ...(supports.length > 0 && { groundingSupports: supports }),
      webSearchQueries: queries,
    },
  };
}

/**
 * `args` is a JSON object on Gemini's wire, so malformed scripted arguments cannot be sent
 * verbatim: they are sent as a JSON string holding the raw text (the client sees non-object input).
 */
function callArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
