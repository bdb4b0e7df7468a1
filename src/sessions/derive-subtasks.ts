import type { SDKResultMessage, SDKToolProgressMessage, ToolResultBlock } from "../protocol/index.js";
import { INTERRUPTED_TOOL_RESULT } from "./conversation.js";
import type { DeriveContext, DeriveState } from "./derive-state.js";
import { applyToolResults } from "./derive-tools.js";
import { type Part, type SubtaskPart, SubtaskStatus } from "./parts.js";

// A subtask part follows its Agent call: `running` from the call on, linked to the subagent's
// session by the call's `tool_progress` whose data names it, and closed by the call's result,
// whose `tool_use_result` data says how the subagent ended and what it cost.

/** The call's subtask, linked to the subagent's session its progress message names. */
export function linkSubtask(
  state: DeriveState,
  message: SDKToolProgressMessage,
): { state: DeriveState; parts: Part[] } {
  const part = state.openSubtasks[message.tool_use_id];
  const sessionId = field(message.data, "session_id");
  if (!part || typeof sessionId !== "string" || part.childSessionId === sessionId) return { state, parts: [] };
  const linked: SubtaskPart = { ...part, childSessionId: sessionId };
  return { state: { ...state, openSubtasks: { ...state.openSubtasks, [part.callId]: linked } }, parts: [linked] };
}

/**
 * Results close their calls' subtasks: status, session and cost from the call's data when
 * it has them (the Agent tool's), else `error` or `completed` by `is_error`.
 */
export function closeSubtasks(
  state: DeriveState,
  results: readonly ToolResultBlock[],
  data: unknown,
  forced?: SubtaskStatus,
): { state: DeriveState; parts: Part[] } {
  const open = { ...state.openSubtasks };
  const parts: Part[] = [];
  for (const result of results) {
    const part = open[result.tool_use_id];
    if (!part) continue;
    delete open[result.tool_use_id];
    const entry = field(data, result.tool_use_id);
    const status = SubtaskStatus.safeParse(field(entry, "status"));
    const sessionId = field(entry, "session_id");
    const cost = field(entry, "total_cost_usd");
    parts.push({
      ...part,
      status: forced ?? (status.success ? status.data : result.is_error === true ? "error" : "completed"),
      childSessionId: typeof sessionId === "string" ? sessionId : part.childSessionId,
      costUsd: typeof cost === "number" ? cost : part.costUsd,
    });
  }
  return { state: { ...state, openSubtasks: open }, parts };
}

/**
 * A new run starts (`init`): calls still open that the last run did not pause on died with
 * the process that ran them. They close as the resumed history closes them, with
 * {@link INTERRUPTED_TOOL_RESULT}, and their subtasks read `interrupted`.
 */
export function interruptOpenCalls(state: DeriveState, ctx: DeriveContext): { state: DeriveState; parts: Part[] } {
  const waiting = new Set(state.waiting);
  const dead: ToolResultBlock[] = Object.keys(state.openTools)
    .filter((id) => !waiting.has(id))
    .map((id) => ({ type: "tool_result", tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true }));
  const cleared = { ...state, waiting: [] };
  if (dead.length === 0) return { state: cleared, parts: [] };
  const tools = applyToolResults(cleared, dead, ctx);
  const subtasks = closeSubtasks(tools.state, dead, undefined, "interrupted");
  return { state: subtasks.state, parts: [...tools.parts, ...subtasks.parts] };
}

/** The calls a run's `result` leaves waiting: those it paused on. */
export function waitingCalls(result: SDKResultMessage): string[] {
  return result.terminal_reason === "requires_action" ? (result.pending_tool_calls ?? []).map((call) => call.id) : [];
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
