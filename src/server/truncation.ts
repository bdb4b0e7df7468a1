import { estimateAssistantTokens, estimateTextTokens, estimateUserTokens } from "../context/index.js";
import type { Model } from "../model/index.js";
import type { UserContentBlock } from "../protocol/index.js";
import type { AnyTool } from "../tools/index.js";
import type { Conversation, Turn } from "./conversation.js";
import { RequestError } from "./errors.js";

/** What a conversation must fit in, in the loop's estimate (characters / 4). */
export interface ContextBudget {
  /** Tokens the input may take: the model's context window less what the answer may use. */
  inputTokens: number;
  /** Tokens sent besides the conversation: the system prompt and the tool definitions. */
  fixedTokens: number;
}

/**
 * The budget of a request to `model`, when its context window is known: the window less the
 * answer's `max_output_tokens`, with the system prompt and the client's tools counted in.
 * `max_output_tokens` that take the whole window leave nothing to fit: a 400 on that field.
 */
export function contextBudget(
  model: Model,
  system: string,
  tools: readonly AnyTool[],
  maxOutputTokens: number | undefined,
): ContextBudget | undefined {
  const window = model.info?.contextWindow;
  if (window === undefined) return undefined;
  if (maxOutputTokens !== undefined && maxOutputTokens >= window)
    throw new RequestError(
      400,
      `max_output_tokens (${maxOutputTokens}) leaves no room for the input in the model's context window (${window} tokens).`,
      "invalid_value",
      "max_output_tokens",
    );
  const definitions = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    schema: tool.jsonSchema,
  }));
  return {
    inputTokens: window - (maxOutputTokens ?? 0),
    fixedTokens: estimateTextTokens(system) + estimateTextTokens(JSON.stringify(definitions)),
  };
}

/** Put where dropped turns were, so the model knows the conversation is not whole. */
export const DROPPED_NOTE = "[Earlier turns of this conversation were dropped to fit the model's context window.]";

/**
 * The conversation that fits `budget`. `disabled` (OpenAI's default) takes it whole or refuses
 * it; `auto` drops its oldest turns, as few as it can. The instructions and the last user turn
 * always stay, with the answer whose calls that turn replies to; a call is dropped with its
 * output, never apart from it. Too long either way is a 400 `context_length_exceeded`.
 */
export function fitConversation(
  conversation: Conversation,
  budget: ContextBudget,
  truncation: "auto" | "disabled",
): Conversation {
  const { seed } = conversation;
  const fixed = budget.fixedTokens + estimateUserTokens(conversation.prompt);
  // suffix[i]: the tokens of seed[i..].
  const suffix = new Array<number>(seed.length + 1).fill(0);
  for (let index = seed.length - 1; index >= 0; index--)
    suffix[index] = (suffix[index + 1] ?? 0) + turnTokens(seed[index] as Turn);
  const whole = fixed + (suffix[0] ?? 0);
  if (whole <= budget.inputTokens) return conversation;
  if (truncation === "disabled") throw tooLong(whole, budget.inputTokens, 'Shorten it, or set truncation to "auto".');
  const keepFrom = seed.length - (conversation.pending.length > 0 ? 1 : 0);
  const note = estimateTextTokens(DROPPED_NOTE);
  const kept = (cut: number) => fixed + (suffix[cut] ?? 0) + note - orphanedOutputs(seed[cut]);
  for (let cut = 1; cut <= keepFrom; cut++) if (kept(cut) <= budget.inputTokens) return dropOldest(conversation, cut);
  throw tooLong(
    kept(keepFrom),
    budget.inputTokens,
    "Only earlier turns are dropped: shorten the instructions, the tools or the last user turn.",
  );
}

/** The tokens of the outputs a turn starting after a cut loses: their calls were dropped before it. */
function orphanedOutputs(turn: Turn | undefined): number {
  if (turn?.role !== "user") return 0;
  return estimateUserTokens(turn.content.filter((block) => block.type === "tool_result"));
}

/** The conversation without its first `count` seeded turns, and with the note in their place. */
function dropOldest(conversation: Conversation, count: number): Conversation {
  const rest = conversation.seed.slice(count);
  const noted: UserContentBlock = { type: "text", text: DROPPED_NOTE };
  const first = rest[0];
  if (!first) return { ...conversation, seed: [], prompt: [noted, ...conversation.prompt] };
  if (first.role === "assistant") return { ...conversation, seed: [{ role: "user", content: [noted] }, ...rest] };
  // Outputs here answered the calls of the turn before, dropped with them.
  const content = first.content.filter((block) => block.type !== "tool_result");
  return { ...conversation, seed: [{ role: "user", content: [noted, ...content] }, ...rest.slice(1)] };
}

function turnTokens(turn: Turn): number {
  return turn.role === "user" ? estimateUserTokens(turn.content) : estimateAssistantTokens(turn.content);
}

function tooLong(tokens: number, limit: number, remedy: string): RequestError {
  return new RequestError(
    400,
    `The input (about ${tokens} tokens) exceeds the model's context window (${limit} tokens for the input). ${remedy}`,
    "context_length_exceeded",
    "input",
  );
}
