import { readFile } from "node:fs/promises";
import { z } from "zod";
import { GyreError } from "../errors/index.js";

/** A web page a text cites (from a web search of the same answer). */
export const MockCitation = z.strictObject({
  url: z.string(),
  title: z.string(),
  /** The words of the text it supports (default: all of it). */
  cited_text: z.string().optional(),
});
export type MockCitation = z.infer<typeof MockCitation>;

/**
 * Plain text the model says. `citations`: the pages it cites, sent as Anthropic's
 * `web_search_result_location` citations and the Responses API's `url_citation` annotations.
 */
export const MockTextContent = z.strictObject({
  type: z.literal("text"),
  text: z.string(),
  citations: z.array(MockCitation).optional(),
});
export type MockTextContent = z.infer<typeof MockTextContent>;

/**
 * A search the provider ran itself: Anthropic's `server_tool_use` + `web_search_tool_result`
 * blocks (and `usage.server_tool_use.web_search_requests`), the Responses API's `web_search_call`
 * item, Gemini's `groundingMetadata` (its queries, pages and the texts' citations, on the last
 * chunk). Chat Completions, without server-side search, sends nothing for it.
 */
export const MockWebSearchContent = z.strictObject({
  type: z.literal("web_search"),
  /** The call's id (default `srvtoolu_mock_<turn>_<i>` for Anthropic, `ws_mock_<turn>_<i>` for Responses). */
  id: z.string().optional(),
  query: z.string(),
  results: z.array(z.strictObject({ url: z.string(), title: z.string(), page_age: z.string().optional() })).optional(),
  /** The search failed with this error code (Anthropic's `max_uses_exceeded`, `unavailable`, ...; Responses: status `failed`). */
  error: z.string().optional(),
});
export type MockWebSearchContent = z.infer<typeof MockWebSearchContent>;

/** Reasoning. Anthropic gets a thinking block; Chat `reasoning_content`; Responses a reasoning summary. */
export const MockThinkingContent = z.strictObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  /** Anthropic signature / Responses `encrypted_content`; a deterministic one is made up when absent. */
  signature: z.string().optional(),
});
export type MockThinkingContent = z.infer<typeof MockThinkingContent>;

/**
 * A tool call. `rawInput`, when given, is sent verbatim as the arguments text (may be malformed
 * JSON). Several calls of one turn may share an `id` (a model bug clients must survive).
 */
export const MockToolUseContent = z.strictObject({
  type: z.literal("tool_use"),
  id: z.string().optional(),
  name: z.string().min(1),
  input: z.unknown().optional(),
  rawInput: z.string().optional(),
  /** Characters per streamed argument delta (default 16); larger keeps megabyte arguments quick. */
  chunkSize: z.number().int().positive().optional(),
});
export type MockToolUseContent = z.infer<typeof MockToolUseContent>;

/**
 * A call of a freeform (OpenAI `custom`) tool, whose `input` is raw text. The Responses API gets
 * a `custom_tool_call` item (streamed as `response.custom_tool_call_input.*`); the other formats,
 * which have no freeform tools, a function call whose arguments are `{"input": input}`.
 */
export const MockCustomToolCallContent = z.strictObject({
  type: z.literal("custom_tool_call"),
  id: z.string().optional(),
  name: z.string().min(1),
  input: z.string(),
  /** Characters per streamed input delta (default 16). */
  chunkSize: z.number().int().positive().optional(),
});
export type MockCustomToolCallContent = z.infer<typeof MockCustomToolCallContent>;

export const MockContent = z.discriminatedUnion("type", [
  MockTextContent,
  MockThinkingContent,
  MockToolUseContent,
  MockCustomToolCallContent,
  MockWebSearchContent,
]);
export type MockContent = z.infer<typeof MockContent>;

/**
 * Stop reasons in Anthropic's vocabulary; each wire format maps them to its own. `pause_turn`
 * (Anthropic's server tools pausing a long turn) is a normal stop in the other formats.
 */
export const MockStopReason = z.enum(["end_turn", "tool_use", "max_tokens", "refusal", "stop_sequence", "pause_turn"]);
export type MockStopReason = z.infer<typeof MockStopReason>;

/**
 * Token usage in Anthropic's terms: `input_tokens` excludes cached tokens. OpenAI formats
 * report `input + cache_read + cache_creation` as prompt/input tokens, as OpenAI does.
 */
export const MockUsage = z.strictObject({
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  cache_creation_input_tokens: z.number().int().nonnegative().optional(),
  cache_read_input_tokens: z.number().int().nonnegative().optional(),
  /** Of `output_tokens`, those the model spent reasoning (OpenAI and Gemini report them; Anthropic's format does not). */
  reasoning_tokens: z.number().int().nonnegative().optional(),
});
export type MockUsage = z.infer<typeof MockUsage>;

/**
 * What goes wrong on one attempt at a turn:
 * - `http`: answer with this status and the endpoint's real error body (plus `retry-after` seconds).
 * - `cut`: start streaming, send `afterChunks` events (default 1), then destroy the socket.
 * - `delay`: wait `ms`, then answer normally.
 * - `stall`: start streaming, send `afterChunks` events (default 1), then send nothing more and
 *   hold the connection until the client goes away (a whole answer: never answer).
 */
export const MockFault = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("http"),
    status: z.number().int().min(400).max(599),
    retryAfter: z.number().nonnegative().optional(),
    message: z.string().optional(),
  }),
  z.strictObject({ type: z.literal("cut"), afterChunks: z.number().int().nonnegative().optional() }),
  z.strictObject({ type: z.literal("delay"), ms: z.number().nonnegative() }),
  z.strictObject({ type: z.literal("stall"), afterChunks: z.number().int().nonnegative().optional() }),
]);
export type MockFault = z.infer<typeof MockFault>;

/**
 * Anthropic's server-side compaction in an answer: a `compaction` block before the content, and
 * `usage.iterations` with the compaction's own tokens. Only the Anthropic format sends it.
 */
export const MockCompaction = z.strictObject({
  summary: z.string(),
  /** Input tokens the compaction read (the context before it). Default: the answer's input tokens. */
  inputTokens: z.number().int().nonnegative().optional(),
  /** Output tokens of the summary. Default: ceil(characters / 4) of the summary. */
  outputTokens: z.number().int().nonnegative().optional(),
});
export type MockCompaction = z.infer<typeof MockCompaction>;

/** One scripted model answer. */
export const MockTurn = z.strictObject({
  content: z.array(MockContent).optional(),
  /** Anthropic only: the server compacted the context before this answer. */
  compaction: MockCompaction.optional(),
  /** Default: `tool_use` when the turn has a tool call, else `end_turn`. */
  stopReason: MockStopReason.optional(),
  /** Default: estimated as ceil(characters / 4) of the request and of the answer. */
  usage: MockUsage.optional(),
  /** Wait before answering; a client abort meanwhile ends the wait. */
  delayMs: z.number().nonnegative().optional(),
  /** Time between stream events, kept on a fixed schedule from the first (a late timer does not delay the rest). */
  chunkDelayMs: z.number().nonnegative().optional(),
  /** Attempt k at this turn gets `faults[k]` while k < faults.length; later attempts succeed. */
  faults: z.array(MockFault).optional(),
});
export type MockTurn = z.infer<typeof MockTurn>;

/**
 * Turns for the requests whose system prompt contains `system`: a subagent, which has its own
 * system prompt and history, follows its own script (in history mode) next to its parent's.
 */
export const MockRoute = z.strictObject({
  system: z.string().min(1),
  turns: z.array(MockTurn),
});
export type MockRoute = z.infer<typeof MockRoute>;

/**
 * A mock LLM script. In `history` mode (default) the turn answered is the number of runs
 * of assistant-side items in the request's conversation, so any client that replays the
 * history gets the right turn; in `sequential` mode each answered request takes the next turn.
 * A request matching one of `routes` (the first that matches) is answered from its turns instead.
 */
export const MockScript = z.strictObject({
  mode: z.enum(["history", "sequential"]).optional(),
  turns: z.array(MockTurn),
  routes: z.array(MockRoute).optional(),
  /**
   * The model's context window in tokens: a request over it (characters / 4 of its body) gets
   * the provider's HTTP 400 for a too-long input, and uses no turn.
   */
  contextWindow: z.number().int().positive().optional(),
});
export type MockScript = z.infer<typeof MockScript>;

/** Validate an unknown value as a script; throws `GyreError("mock_script_error")` saying what is wrong. */
export function parseMockScript(value: unknown, source = "script"): MockScript {
  const result = MockScript.safeParse(value);
  if (!result.success) {
    throw new GyreError("mock_script_error", `mock-llm: invalid ${source}: ${z.prettifyError(result.error)}`, {
      cause: result.error,
    });
  }
  return result.data;
}

/** Read and validate a JSON script file; throws `GyreError("mock_script_error")` on any failure. */
export async function loadMockScript(path: string): Promise<MockScript> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new GyreError("mock_script_error", `mock-llm: cannot read script ${path}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GyreError("mock_script_error", `mock-llm: script ${path} is not valid JSON`, { cause: error });
  }
  return parseMockScript(value, `script ${path}`);
}
