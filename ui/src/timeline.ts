import type { SdkEvent, SessionView, StoredMessage, SubtaskPart, ToolPart } from "./types.js";

/** What happened around one tool call, from the stored system messages naming it. */
export interface CallNotes {
  denial?: string;
  hooks: SdkEvent[];
  violations: { kind: string; target: string; message: string }[];
}

export type Item =
  | { kind: "prompt"; key: string; text: string; synthetic: boolean }
  | { kind: "turn"; key: string; turn: number; message: StoredMessage; durationMs: number | undefined }
  | { kind: "event"; key: string; event: SdkEvent };

export interface Timeline {
  items: Item[];
  notes: Map<string, CallNotes>;
  subtasks: Map<string, SubtaskPart>;
  writes: Map<string, { before: string | null; partial: boolean }>;
  /** Each step's snapshots (the `snapshots` option): as it started and the next one, by assistant message id. */
  steps: Map<string, { from: string; to: string }>;
  /** The run's permission mode, from its init message (the latest run's). */
  permissionMode: string | undefined;
}

/** Events shown on their tool call rather than in the timeline. */
function callOf(event: SdkEvent): string | undefined {
  if (
    event.subtype === "permission_denied" ||
    event.subtype === "sandbox_violation" ||
    event.subtype === "hook_response"
  )
    return typeof event.tool_use_id === "string" ? event.tool_use_id : undefined;
  return undefined;
}

function notesFor(notes: Map<string, CallNotes>, id: string): CallNotes {
  let found = notes.get(id);
  if (!found) notes.set(id, (found = { hooks: [], violations: [] }));
  return found;
}

/** The session's messages and events as one list, in the order they were stored. */
export function buildTimeline(view: SessionView): Timeline {
  const notes = new Map<string, CallNotes>();
  const placed = new Map<string | null, SdkEvent[]>();
  let permissionMode: string | undefined;
  for (const { after, message: event } of view.events) {
    const call = callOf(event);
    if (event.subtype === "init" && typeof event.permissionMode === "string") permissionMode = event.permissionMode;
    if (call !== undefined) {
      const note = notesFor(notes, call);
      if (event.subtype === "permission_denied") note.denial = String(event.message ?? "");
      else if (event.subtype === "hook_response") note.hooks.push(event);
      else note.violations.push(...((event.violations as CallNotes["violations"] | undefined) ?? []));
      continue;
    }
    const list = placed.get(after) ?? [];
    list.push(event);
    placed.set(after, list);
  }
  const items: Item[] = [];
  const pushEvents = (after: string | null) => {
    for (const event of placed.get(after) ?? []) items.push({ kind: "event", key: event.uuid, event });
  };
  const subtasks = new Map<string, SubtaskPart>();
  pushEvents(null);
  let turn = 0;
  for (const message of view.messages) {
    if (message.role === "user") {
      const texts = message.parts.filter((part) => part.type === "text" && !part.synthetic);
      const text = texts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
      if (text) items.push({ kind: "prompt", key: message.id, text, synthetic: false });
    } else {
      turn++;
      let start: number | undefined;
      let end: number | undefined;
      for (const part of message.parts) {
        if (part.type === "step-start") start ??= part.time;
        else if (part.type === "step-finish") end = part.time;
        else if (part.type === "subtask") subtasks.set(part.callId, part);
      }
      const durationMs = start !== undefined && end !== undefined ? end - start : undefined;
      items.push({ kind: "turn", key: message.id, turn, message, durationMs });
    }
    pushEvents(message.sdkUuid);
  }
  const writes = new Map(view.writes.map((write) => [write.callId, write]));
  return { items, notes, subtasks, writes, steps: stepSnapshots(view), permissionMode };
}

export function toolParts(message: StoredMessage): ToolPart[] {
  return message.parts.filter((part): part is ToolPart => part.type === "tool");
}

/** The cost of a session with its subagents' (each Agent call's subtask part says what its subagent spent, its own subagents included). */
export function costWithSubagents(view: SessionView, timeline: Timeline): number {
  let total = view.session.costUsd;
  for (const subtask of timeline.subtasks.values()) total += subtask.costUsd ?? 0;
  return total;
}

/**
 * A step changed what differs between its snapshot (on its assistant message, as it started)
 * and the next one (the next step's, or the one on the run's last message, as it ended).
 */
function stepSnapshots(view: SessionView): Map<string, { from: string; to: string }> {
  const snapshots: { messageId: string; assistant: boolean; snapshot: string }[] = [];
  for (const message of view.messages)
    for (const part of message.parts)
      if (part.type === "snapshot")
        snapshots.push({ messageId: message.id, assistant: message.role === "assistant", snapshot: part.snapshot });
  const steps = new Map<string, { from: string; to: string }>();
  snapshots.forEach((start, index) => {
    const end = snapshots[index + 1];
    if (start.assistant && end && !steps.has(start.messageId) && end.snapshot !== start.snapshot)
      steps.set(start.messageId, { from: start.snapshot, to: end.snapshot });
  });
  return steps;
}
