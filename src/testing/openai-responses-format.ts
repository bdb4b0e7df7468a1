import { type AnswerBlock, type MockAnswer, splitArguments, splitText, toolCallId } from "./answer.js";
import type { MockCitation } from "./script.js";
import { openaiError, responsesUsage } from "./openai-shared.js";
import { countRuns, namedEvent, plainText, systemMessagesText, type WireFormat } from "./wire-format.js";

/** Input items that are not the model's own output: user-side messages and tool outputs. */
function isAssistantSide(item: Record<string, unknown>): boolean {
  if (item.role !== undefined) return item.role === "assistant";
  const type = typeof item.type === "string" ? item.type : "message";
  return type !== "message" && !type.endsWith("_output") && type !== "mcp_approval_response";
}

/** OpenAI Responses API (`POST /v1/responses`); thinking is sent as a reasoning summary. */
export const openaiResponsesFormat: WireFormat = {
  format: "openai-responses",

  assistantRuns(request) {
    return countRuns(request.input, isAssistantSide);
  },

  systemText: (request) => [plainText(request.instructions), systemMessagesText(request.input)].join("\n"),

  error: openaiError,

  json(answer) {
    return responseObject(answer, finalStatus(answer), outputItems(answer));
  },

  frames(answer) {
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>) =>
      namedEvent(type, { type, sequence_number: sequence++, ...data });
    const frames = [
      event("response.created", { response: responseObject(answer, "in_progress", []) }),
      event("response.in_progress", { response: responseObject(answer, "in_progress", []) }),
    ];
    answer.blocks.forEach((block, outputIndex) => {
      const item = outputItem(answer, block, outputIndex);
      frames.push(event("response.output_item.added", { output_index: outputIndex, item: pendingItem(item) }));
      for (const [type, data] of itemEvents(block, item, outputIndex)) frames.push(event(type, data));
      frames.push(event("response.output_item.done", { output_index: outputIndex, item }));
    });
    const status = finalStatus(answer);
    frames.push(event(`response.${status}`, { response: responseObject(answer, status, outputItems(answer)) }));
    return frames;
  },
};

type Status = "in_progress" | "completed" | "incomplete";

function finalStatus(answer: MockAnswer): Exclude<Status, "in_progress"> {
  return incompleteReason(answer) === null ? "completed" : "incomplete";
}

function incompleteReason(answer: MockAnswer): string | null {
  if (answer.stopReason === "max_tokens") return "max_output_tokens";
  if (answer.stopReason === "refusal") return "content_filter";
  return null;
}

function responseObject(answer: MockAnswer, status: Status, output: unknown[]) {
  const reason = status === "incomplete" ? incompleteReason(answer) : null;
  return {
    id: `resp_mock_${answer.seq}`,
    object: "response",
    created_at: answer.created,
    status,
    model: answer.model,
    output,
    error: null,
    incomplete_details: reason === null ? null : { reason },
    usage: status === "in_progress" ? null : responsesUsage(answer),
  };
}

function outputItems(answer: MockAnswer) {
  return answer.blocks.map((block, index) => outputItem(answer, block, index));
}

/** A finished output item, as `output_item.done` and the final response carry it. */
function outputItem(answer: MockAnswer, block: AnswerBlock, index: number) {
  const suffix = `${answer.turn}_${index}`;
  switch (block.type) {
    case "text":
      return {
        type: "message",
        id: `msg_mock_${suffix}`,
        status: "completed",
        role: "assistant",
        content: [
          {
            type: "output_text",
            text: block.text,
            annotations: annotations(block.text, block.citations),
            logprobs: [],
          },
        ],
      };
    case "web_search": {
      // The sources come only when the request asks for them, as the AI SDK does with a search tool.
      const include = Array.isArray(answer.request.include) ? answer.request.include : [];
      const withSources = include.includes("web_search_call.action.sources");
      return {
        type: "web_search_call",
        id: block.id ?? `ws_mock_${suffix}`,
        status: block.error === undefined ? "completed" : "failed",
        action: {
          type: "search",
          query: block.query,
          ...(withSources && { sources: block.results.map((page) => ({ type: "url", url: page.url })) }),
        },
      };
    }
    case "thinking":
      return {
        type: "reasoning",
        id: `rs_mock_${suffix}`,
        summary: [{ type: "summary_text", text: block.thinking }],
        encrypted_content: block.signature,
      };
    case "tool_use":
      if (block.freeformInput !== undefined)
        return {
          type: "custom_tool_call",
          id: `ctc_mock_${suffix}`,
          status: "completed",
          call_id: toolCallId(answer, block, "call"),
          name: block.name,
          input: block.freeformInput,
        };
      return {
        type: "function_call",
        id: `fc_mock_${suffix}`,
        status: "completed",
        call_id: toolCallId(answer, block, "call"),
        name: block.name,
        arguments: block.arguments,
      };
  }
}

/** The item as `output_item.added` announces it, before any content streamed. */
function pendingItem(item: ReturnType<typeof outputItem>) {
  switch (item.type) {
    case "web_search_call":
      return { type: item.type, id: item.id, status: "in_progress" };
    case "message":
      return { ...item, status: "in_progress", content: [] };
    case "reasoning":
      return { ...item, summary: [] };
    case "function_call":
      return { ...item, status: "in_progress", arguments: "" };
    case "custom_tool_call":
      return { ...item, status: "in_progress", input: "" };
  }
}

type ItemEvent = [string, Record<string, unknown>];

function itemEvents(block: AnswerBlock, item: { id: string }, outputIndex: number): ItemEvent[] {
  const at = { item_id: item.id, output_index: outputIndex };
  switch (block.type) {
    case "text": {
      const part = { type: "output_text", text: "", annotations: [] };
      const cited = annotations(block.text, block.citations);
      return [
        ["response.content_part.added", { ...at, content_index: 0, part }],
        ...splitText(block.text).map((delta): ItemEvent => [
          "response.output_text.delta",
          { ...at, content_index: 0, delta, logprobs: [] },
        ]),
        ...cited.map((annotation, annotationIndex): ItemEvent => [
          "response.output_text.annotation.added",
          { ...at, content_index: 0, annotation_index: annotationIndex, annotation },
        ]),
        ["response.output_text.done", { ...at, content_index: 0, text: block.text, logprobs: [] }],
        [
          "response.content_part.done",
          { ...at, content_index: 0, part: { ...part, text: block.text, annotations: cited } },
        ],
      ];
    }
    case "web_search":
      return [
        ["response.web_search_call.in_progress", at],
        ["response.web_search_call.searching", at],
        // A failed search's item is done with status "failed", without a completed event.
        ...(block.error === undefined ? [["response.web_search_call.completed", at] as ItemEvent] : []),
      ];
    case "thinking": {
      const part = { type: "summary_text", text: "" };
      return [
        ["response.reasoning_summary_part.added", { ...at, summary_index: 0, part }],
        ...splitText(block.thinking).map((delta): ItemEvent => [
          "response.reasoning_summary_text.delta",
          { ...at, summary_index: 0, delta },
        ]),
        ["response.reasoning_summary_text.done", { ...at, summary_index: 0, text: block.thinking }],
        ["response.reasoning_summary_part.done", { ...at, summary_index: 0, part: { ...part, text: block.thinking } }],
      ];
    }
    case "tool_use":
      if (block.freeformInput !== undefined)
        return [
          ...splitArguments(block.freeformInput, block.chunkSize).map((delta): ItemEvent => [
            "response.custom_tool_call_input.delta",
            { ...at, delta },
          ]),
          ["response.custom_tool_call_input.done", { ...at, input: block.freeformInput }],
        ];
      return [
        ...splitArguments(block.arguments, block.chunkSize).map((delta): ItemEvent => [
          "response.function_call_arguments.delta",
          { ...at, delta },
        ]),
        ["response.function_call_arguments.done", { ...at, arguments: block.arguments }],
      ];
  }
}

/** A text's citations as `url_citation` annotations: where its cited words are, else all of it. */
function annotations(text: string, cited: MockCitation[] | undefined) {
  return (cited ?? []).map((citation) => {
    const found = citation.cited_text === undefined ? -1 : text.indexOf(citation.cited_text);
    const start = found < 0 ? 0 : found;
    const end = found < 0 ? text.length : found + (citation.cited_text ?? "").length;
    return { type: "url_citation", start_index: start, end_index: end, url: citation.url, title: citation.title };
  });
}
