import type {
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import { z } from "zod";

/**
 * Provider metadata key under which a malformed `<tool>` block is kept on its `tool-call`
 * part: the text as the model wrote it and what was wrong with it. The loop stores it with
 * the message, so later turns show the model its own text and the reason next to the error.
 */
export const TEXT_PROTOCOL_METADATA = "textProtocol";

export const MalformedCall = z.object({ raw: z.string(), closed: z.boolean(), problem: z.string() });
export type MalformedCall = z.infer<typeof MalformedCall>;

type UserPart = LanguageModelV3TextPart | LanguageModelV3FilePart;
type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];

const FORMAT_REMINDER = 'Write each call as <tool>{"tool_name": "...", "arguments": {...}}</tool>.';

/**
 * Rewrite a conversation for a model without native tools: the protocol section is added
 * to the system message (a system message is created when there is none), assistant
 * `tool-call` parts become `<tool>` blocks, reasoning becomes `<thinking>` sections, and
 * `tool` messages become user messages of `<tool_result>` blocks, merged with a user
 * message that follows so user and assistant turns still alternate.
 */
export function rewritePrompt(prompt: LanguageModelV3Prompt, section: string | undefined): LanguageModelV3Prompt {
  const malformed = new Map<string, MalformedCall>();
  const out: LanguageModelV3Message[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        out.push(message);
        break;
      case "assistant":
        out.push({ ...message, content: rewriteAssistant(message.content, malformed) });
        break;
      case "tool":
        pushUser(out, { role: "user", content: toolResultParts(message.content, malformed) });
        break;
      case "user":
        pushUser(out, message);
        break;
    }
  }
  return section === undefined ? out : withSection(out, section);
}

function withSection(messages: LanguageModelV3Message[], section: string): LanguageModelV3Message[] {
  const leading = messages.findIndex((message) => message.role !== "system");
  const lastSystem = (leading < 0 ? messages.length : leading) - 1;
  const system = messages[lastSystem];
  if (system?.role !== "system") return [{ role: "system", content: section }, ...messages];
  const copy = [...messages];
  copy[lastSystem] = { ...system, content: `${system.content}\n\n${section}` };
  return copy;
}

function pushUser(out: LanguageModelV3Message[], message: Extract<LanguageModelV3Message, { role: "user" }>) {
  const previous = out.at(-1);
  if (previous?.role !== "user") {
    out.push(message);
    return;
  }
  out[out.length - 1] = { ...previous, content: joinParts([...previous.content, ...message.content]) };
}

function rewriteAssistant(parts: readonly AssistantPart[], malformed: Map<string, MalformedCall>) {
  const out: Array<Exclude<AssistantPart, LanguageModelV3ToolCallPart | LanguageModelV3ToolResultPart>> = [];
  for (const part of parts) {
    switch (part.type) {
      case "text":
      case "file":
        out.push(part);
        break;
      case "reasoning":
        if (part.text.trim().length > 0) out.push({ type: "text", text: `<thinking>\n${part.text}\n</thinking>` });
        break;
      case "tool-call":
        out.push({ type: "text", text: toolCallText(part, malformed) });
        break;
      case "tool-result":
        out.push(...toolResultParts([part], malformed));
        break;
    }
  }
  return joinParts(out);
}

function toolCallText(part: LanguageModelV3ToolCallPart, malformed: Map<string, MalformedCall>): string {
  const bad = MalformedCall.safeParse(part.providerOptions?.[TEXT_PROTOCOL_METADATA]);
  if (bad.success) {
    malformed.set(part.toolCallId, bad.data);
    return `<tool>${bad.data.raw}${bad.data.closed ? "</tool>" : ""}`;
  }
  return `<tool>\n${JSON.stringify({ tool_name: part.toolName, arguments: part.input ?? {} })}\n</tool>`;
}

function toolResultParts(
  parts: ReadonlyArray<Extract<LanguageModelV3Message, { role: "tool" }>["content"][number]>,
  malformed: Map<string, MalformedCall>,
): UserPart[] {
  const out: UserPart[] = [];
  for (const part of parts) {
    if (part.type !== "tool-result") continue;
    const { body, isError } = resultBody(part.output);
    const problem = malformed.get(part.toolCallId)?.problem;
    const attributes = [
      `tool_name="${attribute(part.toolName)}"`,
      `tool_call_id="${attribute(part.toolCallId)}"`,
      ...(isError || problem ? ['is_error="true"'] : []),
    ];
    out.push({ type: "text", text: `<tool_result ${attributes.join(" ")}>\n` });
    out.push(...body);
    if (problem) out.push({ type: "text", text: `\n${problem} ${FORMAT_REMINDER}` });
    out.push({ type: "text", text: "\n</tool_result>" });
  }
  return joinParts(out);
}

function resultBody(output: LanguageModelV3ToolResultPart["output"]): { body: UserPart[]; isError: boolean } {
  switch (output.type) {
    case "text":
      return { body: [text(output.value)], isError: false };
    case "error-text":
      return { body: [text(output.value)], isError: true };
    case "json":
      return { body: [text(JSON.stringify(output.value))], isError: false };
    case "error-json":
      return { body: [text(JSON.stringify(output.value))], isError: true };
    case "execution-denied":
      return {
        body: [text(`The call was denied${output.reason ? `: ${output.reason}` : "."}`)],
        isError: true,
      };
    case "content":
      return { body: output.value.map(contentPart), isError: false };
  }
}

function contentPart(
  part: Extract<LanguageModelV3ToolResultPart["output"], { type: "content" }>["value"][number],
): UserPart {
  switch (part.type) {
    case "text":
      return text(part.text);
    case "file-data":
    case "image-data":
      return { type: "file", data: part.data, mediaType: part.mediaType };
    case "file-url":
      return {
        type: "file",
        data: new URL(part.url),
        mediaType: part.mediaType ?? "application/octet-stream",
      };
    case "image-url":
      return { type: "file", data: new URL(part.url), mediaType: "image/*" };
    default:
      return text(`[${part.type} content not shown]`);
  }
}

function text(value: string): LanguageModelV3TextPart {
  return { type: "text", text: value };
}

/**
 * Merge neighbouring text parts, so each turn reads as one piece of text (providers that
 * concatenate parts would otherwise glue a sentence to the next `<tool>` tag).
 */
function joinParts<T extends { type: string }>(parts: T[]): T[] {
  const out: T[] = [];
  for (const part of parts) {
    const previous = out.at(-1);
    if (isText(previous) && isText(part)) {
      out[out.length - 1] = { ...previous, text: joinText(previous.text, part.text) } as T;
    } else {
      out.push(part);
    }
  }
  return out;
}

function isText(part: { type: string } | undefined): part is LanguageModelV3TextPart {
  return part?.type === "text";
}

/** Blocks of a turn are separated by a blank line; a result's own newlines are kept as they are. */
function joinText(left: string, right: string): string {
  if (left.length === 0 || right.length === 0 || left.endsWith("\n") || right.startsWith("\n")) return left + right;
  return `${left}\n\n${right}`;
}

function attribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
}
