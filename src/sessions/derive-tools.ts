import type { SDKToolProgressMessage, ToolResultBlock } from "../protocol/index.js";
import type { DeriveContext, DeriveState } from "./derive-state.js";
import type { Part, PatchPart, ToolPart } from "./parts.js";

/** Tools that change files, and the input field naming the file. Data, not name checks. */
export const FILE_EDIT_TOOLS: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

/**
 * `tool_progress` for an open call: a pending call is running, since `elapsed_time_seconds`
 * ago, titled by the message, with why it was allowed to; a running call's metadata is the
 * latest `data` reported.
 */
export function applyToolProgress(
  state: DeriveState,
  message: SDKToolProgressMessage,
  ctx: DeriveContext,
): { state: DeriveState; parts: Part[] } {
  const part = state.openTools[message.tool_use_id];
  if (part === undefined) return { state, parts: [] };
  const { data, title, permission_reason: permission } = message;
  let running: ToolPart;
  if (part.state.status === "pending") {
    // A call says when it starts; sessions stored before said so only once it had run a while.
    const startedAt = ctx.now - Math.round(message.elapsed_time_seconds * 1000);
    running = {
      ...part,
      state: {
        status: "running",
        input: part.state.input,
        startedAt,
        ...(title !== undefined && { title }),
        ...(data !== undefined && { metadata: data }),
        ...(permission !== undefined && { permission }),
      },
    };
  } else if (part.state.status === "running" && data !== undefined) {
    running = { ...part, state: { ...part.state, metadata: data } };
  } else return { state, parts: [] };
  return { state: { ...state, openTools: { ...state.openTools, [part.callId]: running } }, parts: [running] };
}

/**
 * Tool results close their calls (completed, or error when `is_error`), and successful
 * file edits add their file to the patch part of the message that made the call. Results
 * for unknown or already closed calls change nothing.
 */
export function applyToolResults(
  state: DeriveState,
  results: ToolResultBlock[],
  ctx: DeriveContext,
): { state: DeriveState; parts: Part[] } {
  const openTools = { ...state.openTools };
  const patches = { ...state.patches };
  const parts: Part[] = [];
  for (const result of results) {
    const part = openTools[result.tool_use_id];
    if (!part) continue;
    delete openTools[result.tool_use_id];
    const closed = closeTool(part, result, ctx.now);
    parts.push(closed);
    const file = closed.state.status === "completed" ? editedFile(part) : undefined;
    if (file !== undefined) {
      const patch = addFile(patches[part.messageId], part, file, ctx);
      patches[part.messageId] = patch;
      parts.push(patch);
    }
  }
  const stillOpen = new Set(Object.values(openTools).map((part) => part.messageId));
  for (const messageId of Object.keys(patches)) if (!stillOpen.has(messageId)) delete patches[messageId];
  // A patch may be emitted twice when two edits resolve in one message; the last wins.
  return { state: { ...state, openTools, patches }, parts: lastById(parts) };
}

function closeTool(part: ToolPart, result: ToolResultBlock, now: number): ToolPart {
  const ran = part.state.status === "running" ? part.state : undefined;
  const { input } = part.state;
  const times = { startedAt: ran?.startedAt ?? now, endedAt: now };
  const described = {
    ...(ran?.title !== undefined && { title: ran.title }),
    ...(ran?.metadata !== undefined && { metadata: ran.metadata }),
    ...(ran?.permission !== undefined && { permission: ran.permission }),
  };
  const text = resultText(result.content);
  if (result.is_error === true) {
    return { ...part, state: { status: "error", input, error: text, ...times, ...described } };
  }
  return { ...part, state: { status: "completed", input, output: text, ...times, ...described } };
}

/** The text the model saw; images become a short note (the raw message keeps them). */
export function resultText(content: ToolResultBlock["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => (block.type === "text" ? block.text : `[image: ${block.source.media_type}]`))
    .join("\n");
}

function editedFile(part: ToolPart): string | undefined {
  const field = FILE_EDIT_TOOLS[part.tool];
  const input = part.state.input;
  if (field === undefined || typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[field];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function addFile(patch: PatchPart | undefined, tool: ToolPart, file: string, ctx: DeriveContext): PatchPart {
  const base: PatchPart = patch ?? {
    id: ctx.newId("prt"),
    messageId: tool.messageId,
    sessionId: tool.sessionId,
    type: "patch",
    files: [],
  };
  return base.files.includes(file) ? base : { ...base, files: [...base.files, file] };
}

function lastById(parts: Part[]): Part[] {
  const byId = new Map<string, Part>();
  for (const part of parts) {
    byId.delete(part.id);
    byId.set(part.id, part);
  }
  return [...byId.values()];
}
