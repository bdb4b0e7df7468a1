import type {
  AssistantContentBlock,
  ImageBlock,
  PendingToolCall,
  TextBlock,
  UserContentBlock,
} from "../protocol/index.js";
import { ToolNamer } from "../mcp/index.js";
import type { PermissionResult } from "../permissions/index.js";
import { compactedText } from "./compaction-item.js";
import { RequestError } from "./errors.js";
import type { CreateResponseRequest, InputContent } from "./request-schema.js";
import type { StoredInputItem } from "./response-object.js";

/** One turn of the conversation, in Gyre's (Anthropic's) content blocks. */
export type Turn =
  { role: "user"; content: UserContentBlock[] } | { role: "assistant"; content: AssistantContentBlock[] };

/**
 * A conversation of Responses items as the loop takes it: the system prompt, the turns to
 * seed a session with, and the last user turn as the prompt. When the last assistant turn made
 * calls, the prompt answers them (`pending`): the session is seeded as a paused run.
 */
export interface Conversation {
  system: string[];
  seed: Turn[];
  pending: PendingToolCall[];
  prompt: UserContentBlock[];
  /** Answers to `mcp_approval_request`s, by request (tool_use) id. */
  approvals: Record<string, PermissionResult>;
}

/** The Gyre name of an MCP server's tool (as the run's tool registry names it). */
export function mcpToolName(serverLabel: string, tool: string): string {
  return new ToolNamer().name(serverLabel, tool);
}

/** `instructions` apply to this response only (a continuation does not inherit them), as OpenAI does. */
export function systemPrompt(request: CreateResponseRequest, conversation: Conversation): string {
  return [...(request.instructions ? [request.instructions] : []), ...conversation.system].join("\n\n");
}

/** Items (the chain's, then the request's) to a conversation; an invalid one is a 400 on `input`. */
export function toConversation(items: readonly StoredInputItem[]): Conversation {
  const { system, turns, approvals } = toTurns(items);
  const last = turns.at(-1);
  if (last?.role !== "user")
    throw new RequestError(
      400,
      "The input must end with a user message or function_call_output items.",
      "invalid_input",
      "input",
    );
  const seed = turns.slice(0, -1).filter((turn) => turn.content.length > 0);
  checkAnswered(seed);
  const previous = seed.at(-1);
  const pending: PendingToolCall[] =
    previous?.role === "assistant"
      ? previous.content.flatMap((block) =>
          block.type === "tool_use"
            ? [
                {
                  kind: block.id in approvals ? ("approval" as const) : ("client_tool" as const),
                  id: block.id,
                  name: block.name,
                  input: block.input,
                },
              ]
            : [],
        )
      : [];
  const prompt = [...last.content].sort((a, b) => rank(a) - rank(b));
  const known = new Set(pending.map((call) => call.id));
  for (const block of prompt) {
    if (block.type === "tool_result" && !known.has(block.tool_use_id))
      throw new RequestError(
        400,
        `No function_call found for function_call_output with call_id ${block.tool_use_id}.`,
        "invalid_input",
        "input",
      );
  }
  for (const call of pending) {
    if (call.kind === "approval") continue;
    if (!prompt.some((block) => block.type === "tool_result" && block.tool_use_id === call.id))
      throw new RequestError(
        400,
        `No function_call_output for function call ${call.name} (call_id ${call.id}).`,
        "invalid_input",
        "input",
      );
  }
  return { system, seed, pending, prompt, approvals };
}

/** Items as the system prompt and turns (consecutive items of one role merged); an invalid one is a 400. */
export function toTurns(items: readonly StoredInputItem[]): {
  system: string[];
  turns: Turn[];
  approvals: Record<string, PermissionResult>;
} {
  const system: string[] = [];
  const turns: Turn[] = [];
  const approvals: Record<string, PermissionResult> = {};
  const requested = new Set<string>();
  // An approval request becomes a call only while it waits on its answer: once answered and run,
  // its mcp_call item stands for it; one never answered is dropped, as OpenAI does.
  const ran = new Set(
    items.flatMap((item) => (item.type === "mcp_call" && item.approval_request_id ? [item.approval_request_id] : [])),
  );
  const answered = new Set(
    items.flatMap((item) => (item.type === "mcp_approval_response" ? [item.approval_request_id] : [])),
  );
  for (const [index, item] of items.entries()) {
    const param = `input[${index}]`;
    // Reasoning without a provider's signature cannot be sent back; a tool listing is not conversation.
    if (item.type === "reasoning" || item.type === "mcp_list_tools") continue;
    if (item.type === "mcp_call") {
      const id = item.approval_request_id ?? item.id;
      append(turns, "assistant", [
        {
          type: "tool_use",
          id,
          name: mcpToolName(item.server_label, item.name),
          input: parseArguments(item.arguments, param),
        },
      ]);
      append(turns, "user", [
        {
          type: "tool_result",
          tool_use_id: id,
          content: item.output ?? item.error ?? "",
          is_error: item.error != null,
        },
      ]);
    } else if (item.type === "mcp_approval_request") {
      requested.add(item.id);
      if (ran.has(item.id) || !answered.has(item.id)) continue;
      append(turns, "assistant", [
        {
          type: "tool_use",
          id: item.id,
          name: mcpToolName(item.server_label, item.name),
          input: parseArguments(item.arguments, param),
        },
      ]);
    } else if (item.type === "mcp_approval_response") {
      if (ran.has(item.approval_request_id)) continue;
      if (!requested.has(item.approval_request_id))
        throw new RequestError(
          400,
          `No mcp_approval_request with id ${item.approval_request_id}.`,
          "invalid_input",
          `${param}.approval_request_id`,
        );
      approvals[item.approval_request_id] = item.approve
        ? { behavior: "allow" }
        : { behavior: "deny", message: `The user declined this call${item.reason ? `: ${item.reason}` : "."}` };
      // An empty user turn marks where the answers go; the approved calls' results come from the run.
      append(turns, "user", []);
    } else if (item.type === "custom_tool_call") {
      append(turns, "assistant", [
        { type: "tool_use", id: item.call_id, name: item.name, input: { input: item.input } },
      ]);
    } else if (item.type === "compaction") {
      append(turns, "user", [
        { type: "text", text: compactedText(item.encrypted_content, `${param}.encrypted_content`) },
      ]);
    } else if (item.type === "function_call") {
      append(turns, "assistant", [
        { type: "tool_use", id: item.call_id, name: item.name, input: parseArguments(item.arguments, param) },
      ]);
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      const content =
        typeof item.output === "string" ? item.output : item.output.map((part) => userBlock(part, `${param}.output`));
      append(turns, "user", [
        { type: "tool_result", tool_use_id: item.call_id, content: content as Array<TextBlock | ImageBlock> | string },
      ]);
    } else if (item.role === "assistant") {
      const parts =
        typeof item.content === "string"
          ? [item.content]
          : item.content.map((part) => (part.type === "refusal" ? part.refusal : part.text));
      append(
        turns,
        "assistant",
        parts.filter((text) => text.length > 0).map((text) => ({ type: "text", text })),
      );
    } else if (item.role === "system" || item.role === "developer") {
      system.push(
        typeof item.content === "string" ? item.content : item.content.map((part) => textOf(part, param)).join("\n"),
      );
    } else {
      const content =
        typeof item.content === "string"
          ? [{ type: "text" as const, text: item.content }]
          : item.content.map((part, i) => userBlock(part, `${param}.content[${i}]`));
      append(turns, "user", content);
    }
  }
  return { system, turns, approvals };
}

/** Consecutive items of one role are one turn (a message and its function calls are one answer). */
function append(turns: Turn[], role: Turn["role"], blocks: Array<UserContentBlock | AssistantContentBlock>): void {
  const last = turns.at(-1);
  if (last?.role === role) (last.content as unknown[]).push(...blocks);
  else turns.push({ role, content: blocks } as Turn);
}

/** Every call of a seeded answer has its output in the next turn: providers reject a call left open. */
function checkAnswered(seed: readonly Turn[]): void {
  for (const [index, turn] of seed.entries()) {
    if (turn.role !== "assistant" || index === seed.length - 1) continue;
    const next = seed[index + 1];
    const answered = new Set(
      next?.role === "user" ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : [])) : [],
    );
    for (const block of turn.content) {
      if (block.type === "tool_use" && !answered.has(block.id))
        throw new RequestError(
          400,
          `No function_call_output for function call ${block.name} (call_id ${block.id}).`,
          "invalid_input",
          "input",
        );
    }
    if (next?.role === "user") next.content.sort((a, b) => rank(a) - rank(b));
  }
}

/** Tool results lead a user turn, as providers require. */
function rank(block: UserContentBlock): number {
  return block.type === "tool_result" ? 0 : 1;
}

function parseArguments(text: string, param: string): unknown {
  try {
    return text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new RequestError(
      400,
      "A function_call's arguments are not valid JSON.",
      "invalid_input",
      `${param}.arguments`,
      error,
    );
  }
}

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;
const TEXT_TYPES = /^(text\/|application\/(json|xml|yaml|x-yaml|javascript|x-ndjson))/;

function textOf(part: InputContent, param: string): string {
  if (part.type !== "input_text")
    throw new RequestError(400, "A system or developer message takes only input_text.", "invalid_input", param);
  return part.text;
}

/** Input content as a content block. Images and files come inline (data URLs): the server fetches nothing. */
function userBlock(part: InputContent, param: string): TextBlock | ImageBlock {
  if (part.type === "input_text") return { type: "text", text: part.text };
  if (part.type === "input_image") {
    const match = DATA_URL.exec(part.image_url ?? "");
    if (!match?.[1] || match[2] === undefined)
      throw new RequestError(
        400,
        "input_image needs image_url as a base64 data URL (data:image/png;base64,...); file_id and http URLs are not supported.",
        "invalid_image_url",
        `${param}.image_url`,
      );
    if (!match[1].startsWith("image/"))
      throw new RequestError(
        400,
        `input_image has media type ${match[1]}, not an image.`,
        "invalid_image_format",
        `${param}.image_url`,
      );
    return { type: "image", source: { type: "base64", media_type: match[1], data: match[2] } };
  }
  const match = DATA_URL.exec(part.file_data ?? "");
  if (!match?.[1] || match[2] === undefined)
    throw new RequestError(
      400,
      "input_file needs file_data as a base64 data URL; file_id and file_url are not supported.",
      "invalid_input",
      `${param}.file_data`,
    );
  if (!TEXT_TYPES.test(match[1]))
    throw new RequestError(
      400,
      `input_file of type ${match[1]} is not supported; text files are.`,
      "unsupported_file",
      `${param}.file_data`,
    );
  const name = part.filename ?? "file";
  return {
    type: "text",
    text: `<file name=${JSON.stringify(name)}>\n${Buffer.from(match[2], "base64").toString("utf8")}\n</file>`,
  };
}
