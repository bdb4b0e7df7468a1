import type { APIAssistantMessage, AssistantContentBlock, HistoryEntry, UserContentBlock } from "../protocol/index.js";

// Anthropic rejects a request whose tool_use ids are not unique, and OpenAI's Responses and
// Chat APIs pair each output with a call by id: one id on two calls makes the history
// unusable for every later request. So ids are made unique before a message joins it.

export interface UniqueToolUseIds {
  /** The message with every tool_use id unique in it and in the history before it. */
  message: APIAssistantMessage;
  /**
   * Calls whose id repeated an earlier call's in the same message (new id → the model's id).
   * They must not run: answering them with an error keeps each call paired with one result.
   */
  repeated: Map<string, string>;
}

/**
 * Renames tool_use ids of `message` already taken: by an earlier call of the same message
 * (listed in `repeated`), or by a call earlier in `history` (some models number their ids
 * from 0 every turn; those calls are fine and run). The message is returned as is when
 * nothing repeats.
 */
export function uniqueToolUseIds(message: APIAssistantMessage, history: readonly HistoryEntry[]): UniqueToolUseIds {
  return renameRepeated(message, historyIds(history));
}

/**
 * The same for a whole history, as a session stored before ids were checked may hold: the
 * results in the user turn after a message follow its calls' new ids, matched in order.
 */
export function uniqueHistoryToolUseIds(history: readonly HistoryEntry[]): HistoryEntry[] {
  const taken = new Set<string>();
  let finals = new Map<string, string[]>();
  return history.map((entry): HistoryEntry => {
    if (entry.role === "user") {
      const content = finals.size > 0 ? renameResults(entry.content, finals) : entry.content;
      finals = new Map();
      return content === entry.content ? entry : { role: "user", content };
    }
    const { message } = renameRepeated(entry.message, taken);
    finals = new Map();
    if (message === entry.message) {
      for (const id of callIds(message)) taken.add(id);
      return entry;
    }
    const before = callIds(entry.message);
    callIds(message).forEach((id, index) => {
      const original = before[index] as string;
      finals.set(original, [...(finals.get(original) ?? []), id]);
      taken.add(id);
    });
    return { role: "assistant", message };
  });
}

function renameRepeated(message: APIAssistantMessage, taken: ReadonlySet<string>): UniqueToolUseIds {
  const repeated = new Map<string, string>();
  const own = callIds(message);
  if (own.every((id, index) => !taken.has(id) && own.indexOf(id) === index)) return { message, repeated };
  // Taken meanwhile: the history's ids, this message's own ids, and each new one.
  const used = new Set([...taken, ...own]);
  const seen = new Set<string>();
  const content = message.content.map((block): AssistantContentBlock => {
    if (block.type !== "tool_use") return block;
    const first = !seen.has(block.id);
    seen.add(block.id);
    if (first && !taken.has(block.id)) return block;
    const id = freshId(block.id, used);
    used.add(id);
    if (!first) repeated.set(id, block.id);
    return { ...block, id };
  });
  return { message: { ...message, content }, repeated };
}

/** `<id>_2`, `<id>_3`, …: still in the pattern providers accept (`[A-Za-z0-9_-]+`) when `id` is. */
function freshId(id: string, used: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const candidate = `${id}_${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** Ids already collected per history array, so each turn reads only the entries added since. */
const collected = new WeakMap<readonly HistoryEntry[], { scanned: number; ids: Set<string> }>();

function historyIds(history: readonly HistoryEntry[]): Set<string> {
  let cache = collected.get(history);
  // A history only grows; one that shrank was rewritten (compaction builds a new array anyway).
  if (!cache || cache.scanned > history.length) {
    cache = { scanned: 0, ids: new Set() };
    collected.set(history, cache);
  }
  for (; cache.scanned < history.length; cache.scanned++) {
    const entry = history[cache.scanned]!;
    if (entry.role !== "assistant") continue;
    for (const block of entry.message.content) if (block.type === "tool_use") cache.ids.add(block.id);
  }
  return cache.ids;
}

/** The k-th result for a call id goes to the k-th call that had it, under that call's id now. */
function renameResults(
  content: string | UserContentBlock[],
  finals: ReadonlyMap<string, readonly string[]>,
): string | UserContentBlock[] {
  if (typeof content === "string") return content;
  const counts = new Map<string, number>();
  return content.map((block) => {
    if (block.type !== "tool_result") return block;
    const count = counts.get(block.tool_use_id) ?? 0;
    counts.set(block.tool_use_id, count + 1);
    const id = finals.get(block.tool_use_id)?.[count];
    return id === undefined || id === block.tool_use_id ? block : { ...block, tool_use_id: id };
  });
}

function callIds(message: APIAssistantMessage): string[] {
  return message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
}
