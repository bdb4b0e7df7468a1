import { randomUUID } from "node:crypto";
import { GyreError } from "../errors/index.js";
import type { PermissionResult } from "../permissions/index.js";
import type {
  PendingToolCall,
  SDKMessage,
  SDKUserMessage,
  ToolResultBlock,
  UserContentBlock,
} from "../protocol/index.js";

// A run pauses (`requires_action`) on calls the caller must answer: client-executed tools and
// deferred approvals. Everything needed to go on is in the session: the assistant message with
// the calls, the results of the calls that ran, and the result message listing what is pending.
// The next prompt answers them, in this process (streaming input) or in another one (`resume`).

/** A decided approval: allow or deny (a deferred call cannot be deferred again by its answer). */
export type Approval = Exclude<PermissionResult, { behavior: "defer" }>;

/** The calls a stored session waits on: those of its last `requires_action` result that no later message answers. */
export function pendingToolCalls(messages: readonly SDKMessage[]): PendingToolCall[] {
  let pending: PendingToolCall[] = [];
  for (const message of messages) {
    if (message.type === "result") {
      pending = message.terminal_reason === "requires_action" ? (message.pending_tool_calls ?? []) : [];
    } else if (message.type === "user" && message.parent_tool_use_id === null && pending.length > 0) {
      const answered = new Set(resultBlocks(message.message.content).map((block) => block.tool_use_id));
      pending = pending.filter((call) => !answered.has(call.id));
    }
  }
  return pending;
}

/** How a prompt answers a paused run: results of client tools, decisions on approvals, and anything else it says. */
export interface PendingAnswers {
  calls: PendingToolCall[];
  results: Map<string, ToolResultBlock>;
  approvals: Map<string, Approval>;
  /** The prompt's other content (text, images), a new user turn after the answers. */
  rest: UserContentBlock[];
}

/**
 * Checks that a prompt answers exactly the pending calls: one `tool_result` block per pending
 * client tool, one entry of `approvals` per pending approval, nothing for calls that are not
 * pending. Throws `resume_mismatch` otherwise, before anything is recorded.
 */
export function readAnswers(
  pending: readonly PendingToolCall[],
  content: string | UserContentBlock[],
  approvals: Readonly<Record<string, PermissionResult>> = {},
): PendingAnswers {
  const blocks: UserContentBlock[] = typeof content === "string" ? textBlocks(content) : content;
  const byId = new Map(pending.map((call) => [call.id, call]));
  const problems: string[] = [];
  const results = new Map<string, ToolResultBlock>();
  for (const block of resultBlocks(blocks)) {
    const call = byId.get(block.tool_use_id);
    if (!call) problems.push(`a tool_result for ${block.tool_use_id}, which is not a pending call`);
    else if (call.kind !== "client_tool")
      problems.push(`a tool_result for ${call.id}, which waits on an approval, not a result`);
    else if (results.has(call.id)) problems.push(`two tool_results for ${call.id}`);
    else results.set(call.id, block);
  }
  const decided = new Map<string, Approval>();
  for (const [id, answer] of Object.entries(approvals)) {
    const call = byId.get(id);
    if (!call) problems.push(`an approval for ${id}, which is not a pending call`);
    else if (call.kind !== "approval") problems.push(`an approval for ${id}, which waits on a tool_result`);
    else if (answer.behavior === "defer") problems.push(`an approval for ${id} that defers it again`);
    else decided.set(id, answer);
  }
  for (const call of pending) {
    if (call.kind === "client_tool" && !results.has(call.id))
      problems.push(`no tool_result for ${call.name} (${call.id})`);
    if (call.kind === "approval" && !decided.has(call.id)) problems.push(`no approval for ${call.name} (${call.id})`);
  }
  if (problems.length > 0) {
    throw new GyreError(
      "resume_mismatch",
      `The session waits on ${describe(pending)}; the prompt does not answer them: ${problems.join("; ")}. ` +
        "Nothing was changed. Answer client tools with one tool_result block each in the prompt, " +
        "and deferred approvals in options.approvals.",
    );
  }
  return { calls: [...pending], results, approvals: decided, rest: blocks.filter((b) => b.type !== "tool_result") };
}

function resultBlocks(content: string | readonly UserContentBlock[]): ToolResultBlock[] {
  if (typeof content === "string") return [];
  return content.filter((block): block is ToolResultBlock => block.type === "tool_result");
}

function textBlocks(text: string): UserContentBlock[] {
  return text.length > 0 ? [{ type: "text", text }] : [];
}

function describe(pending: readonly PendingToolCall[]): string {
  return pending
    .map((call) => `${call.name} (${call.id}, ${call.kind === "approval" ? "approval" : "result"})`)
    .join(", ");
}

/** The caller's answer to one client-executed tool call. */
export interface ClientToolResult {
  /** The pending call's id (`pending_tool_calls[].id`). */
  toolUseId: string;
  /** What the model sees as the tool's output. */
  content: ToolResultBlock["content"];
  /** The call failed: the model sees an error result. */
  isError?: boolean;
}

/**
 * The prompt that resumes a run paused on client-executed tools: one user message holding a
 * `tool_result` block per call (and `text` after them, if given). Pass it with `resume`.
 */
export async function* toolResultsPrompt(
  results: readonly ClientToolResult[],
  text?: string,
): AsyncGenerator<SDKUserMessage> {
  const content: UserContentBlock[] = results.map((result) => ({
    type: "tool_result",
    tool_use_id: result.toolUseId,
    content: result.content,
    ...(result.isError && { is_error: true }),
  }));
  if (text) content.push({ type: "text", text });
  yield {
    type: "user",
    message: { role: "user", content },
    parent_tool_use_id: null,
    session_id: "",
    uuid: randomUUID(),
  };
}
