import type { Usage } from "../protocol/index.js";
import { conversationIdOf, type CreateResponseRequest, type InputItem, type ToolChoice } from "./request-schema.js";

/** A text part of an assistant message, as output. */
export interface OutputTextPart {
  type: "output_text";
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

/** An item the response produced. */
export type OutputItem =
  | { type: "message"; id: string; status: ItemStatus; role: "assistant"; content: OutputTextPart[] }
  | { type: "function_call"; id: string; call_id: string; name: string; arguments: string; status: ItemStatus }
  | { type: "custom_tool_call"; id: string; call_id: string; name: string; input: string; status: ItemStatus }
  /** Gyre's record of a server-side (built-in) call's result, after its `function_call`. */
  | { type: "function_call_output"; id: string; call_id: string; output: string; status: "completed" | "failed" }
  | {
      type: "mcp_list_tools";
      id: string;
      server_label: string;
      tools: Array<{ name: string; description: string | null; input_schema: unknown; annotations: unknown }>;
      error: string | null;
    }
  | {
      type: "mcp_call";
      id: string;
      server_label: string;
      name: string;
      arguments: string;
      output: string | null;
      error: string | null;
      status: "in_progress" | "completed" | "failed" | "incomplete";
      approval_request_id: string | null;
    }
  | { type: "mcp_approval_request"; id: string; server_label: string; name: string; arguments: string }
  | {
      type: "reasoning";
      id: string;
      summary: Array<{ type: "summary_text"; text: string }>;
      content: Array<{ type: "reasoning_text"; text: string }>;
      status: ItemStatus;
    };

/** Where an output item is: still streaming, done, or cut short (the response ended first). */
export type ItemStatus = "in_progress" | "completed" | "incomplete";

/** An input item as stored and listed by `input_items`: always with an id. */
export type StoredInputItem = Exclude<InputItem, { type: "item_reference" }> & { id: string };

export type ResponseStatus =
  | "queued"
  | "in_progress"
  | "completed"
  | "failed"
  | "incomplete"
  | "cancelled"
  /** Only with the config's `clientToolStatus: "requires_action"`: the response waits on the client's tools. */
  | "requires_action";

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  /** Gyre addition: what the response cost upstream, in US dollars (0 when the model has no known price). */
  cost_usd: number;
}

/** The response object of the spec. */
export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  incomplete_details: { reason: string } | null;
  model: string;
  previous_response_id: string | null;
  /** The conversation the response belongs to (only when it does, as OpenAI echoes it). */
  conversation?: { id: string };
  instructions: string | null;
  output: OutputItem[];
  error: { code: string; message: string } | null;
  tools: unknown[];
  tool_choice: ToolChoice;
  truncation: "auto" | "disabled";
  parallel_tool_calls: boolean;
  text: { format: unknown };
  top_p: number;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  temperature: number;
  reasoning: { effort: string | null; summary: string | null } | null;
  usage: ResponseUsage | null;
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  store: boolean;
  background: boolean;
  service_tier: string;
  metadata: Record<string, string>;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  user: string | null;
}

/** A new response, `in_progress`, echoing the request's settings as the spec asks. */
export function initialResponse(id: string, request: CreateResponseRequest, createdAt: number): ResponseObject {
  return {
    id,
    object: "response",
    created_at: Math.floor(createdAt / 1000),
    completed_at: null,
    status: "in_progress",
    incomplete_details: null,
    model: request.model,
    previous_response_id: request.previous_response_id ?? null,
    ...(request.conversation && { conversation: { id: conversationIdOf(request.conversation) } }),
    instructions: request.instructions ?? null,
    output: [],
    error: null,
    tools: (request.tools ?? []).map((tool) =>
      tool.type === "function"
        ? {
            type: "function",
            name: tool.name,
            description: tool.description ?? null,
            parameters: tool.parameters ?? null,
            strict: tool.strict ?? null,
          }
        : // An MCP server's headers may hold its credentials: never echoed.
          tool.type === "mcp"
          ? { ...tool, headers: null }
          : tool,
    ),
    tool_choice: request.tool_choice ?? "auto",
    truncation: request.truncation ?? "disabled",
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    text: { format: request.text?.format ?? { type: "text" } },
    top_p: request.top_p ?? 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: request.temperature ?? 1,
    reasoning: request.reasoning
      ? { effort: request.reasoning.effort ?? null, summary: request.reasoning.summary ?? null }
      : null,
    usage: null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: request.max_tool_calls ?? null,
    store: request.store ?? true,
    background: request.background ?? false,
    service_tier: "default",
    metadata: request.metadata ?? {},
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    user: request.user ?? null,
  };
}

/**
 * Gyre's usage (Anthropic's counts: input excludes cached tokens) in OpenAI's terms, where
 * input tokens include the cached ones.
 */
export function responseUsage(usage: Usage, costUsd: number): ResponseUsage {
  const input = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cache_read_input_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.output_tokens,
    cost_usd: costUsd,
  };
}
