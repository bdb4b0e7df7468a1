import { z } from "zod";

// The create-response request of the Open Responses spec (OpenAI's Responses API where the spec
// is silent). Every field of the spec is known: those Gyre does not act on are accepted and
// echoed (or ignored), so clients work unchanged; a field or tool type outside the spec is
// refused, as OpenAI refuses it, rather than dropped without a word.

export const InputText = z.object({ type: z.literal("input_text"), text: z.string() });
export const InputImage = z.object({
  type: z.literal("input_image"),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.enum(["low", "high", "auto"]).nullish(),
});
export const InputFile = z.object({
  type: z.literal("input_file"),
  file_data: z.string().nullish(),
  file_url: z.string().nullish(),
  file_id: z.string().nullish(),
  filename: z.string().nullish(),
});
export const OutputText = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
});
export const Refusal = z.object({ type: z.literal("refusal"), refusal: z.string() });

export const InputContent = z.discriminatedUnion("type", [InputText, InputImage, InputFile]);
export type InputContent = z.infer<typeof InputContent>;

const MessageStatus = z.enum(["in_progress", "completed", "incomplete"]).optional();

export const InputMessage = z.object({
  type: z.literal("message").optional(),
  id: z.string().optional(),
  role: z.enum(["user", "system", "developer"]),
  content: z.union([z.string(), z.array(InputContent)]),
  status: MessageStatus,
});
export const AssistantMessage = z.object({
  type: z.literal("message").optional(),
  id: z.string().optional(),
  role: z.literal("assistant"),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [OutputText, Refusal, InputText]))]),
  phase: z.enum(["commentary", "final_answer"]).nullish(),
  status: MessageStatus,
});
export const FunctionCallItem = z.object({
  type: z.literal("function_call"),
  id: z.string().optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  status: MessageStatus,
});
export const FunctionCallOutputItem = z.object({
  type: z.literal("function_call_output"),
  id: z.string().nullish(),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion("type", [InputText, InputImage, InputFile]))]),
  // "failed": Gyre's output of a server-side (built-in) call that ended in an error.
  status: z.enum(["in_progress", "completed", "incomplete", "failed"]).nullish(),
});
export const ReasoningItem = z.object({
  type: z.literal("reasoning"),
  id: z.string().optional(),
  summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })).optional(),
  content: z.array(z.object({ type: z.literal("reasoning_text"), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
  status: MessageStatus,
});
export const ItemReference = z.object({ type: z.literal("item_reference"), id: z.string() });
export const CustomToolCallItem = z.object({
  type: z.literal("custom_tool_call"),
  id: z.string().optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  input: z.string(),
  status: MessageStatus,
});
export const CustomToolCallOutputItem = z.object({
  type: z.literal("custom_tool_call_output"),
  id: z.string().nullish(),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion("type", [InputText, InputImage, InputFile]))]),
});
export const McpListToolsItem = z.object({
  type: z.literal("mcp_list_tools"),
  id: z.string().optional(),
  server_label: z.string(),
  tools: z.array(z.unknown()),
  error: z.string().nullish(),
});
export const McpCallItem = z.object({
  type: z.literal("mcp_call"),
  id: z.string().optional(),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  output: z.string().nullish(),
  error: z.string().nullish(),
  status: z.string().optional(),
  approval_request_id: z.string().nullish(),
});
export const McpApprovalRequestItem = z.object({
  type: z.literal("mcp_approval_request"),
  id: z.string().min(1),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export const McpApprovalResponseItem = z.object({
  type: z.literal("mcp_approval_response"),
  id: z.string().nullish(),
  approval_request_id: z.string().min(1),
  approve: z.boolean(),
  reason: z.string().nullish(),
});
/** The output of `POST /v1/responses/compact`, passed back as it came. */
export const CompactionItem = z.object({
  type: z.literal("compaction"),
  id: z.string().nullish(),
  encrypted_content: z.string().max(10 * 1024 * 1024),
});

/** One input item. A message without `type` is a message, as the spec allows. */
export const InputItem = z.union([
  InputMessage,
  AssistantMessage,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  ItemReference,
  CustomToolCallItem,
  CustomToolCallOutputItem,
  McpListToolsItem,
  McpCallItem,
  McpApprovalRequestItem,
  McpApprovalResponseItem,
  CompactionItem,
]);
export type InputItem = z.infer<typeof InputItem>;

/** Fields of OpenAI's function and custom tools that Gyre accepts and does not act on. */
const toolExtras = {
  /** Who may call the tool (`direct`, `programmatic`): the model calls it directly here. */
  allowed_callers: z.array(z.string()).nullish(),
  /** For OpenAI's tool search: Gyre offers every tool up front. */
  defer_loading: z.boolean().nullish(),
};

export const FunctionTool = z.strictObject({
  type: z.literal("function"),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "a function name is 1-64 letters, digits, underscores or dashes"),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
  output_schema: z.record(z.string(), z.unknown()).nullish(),
  ...toolExtras,
});
export type FunctionTool = z.infer<typeof FunctionTool>;

/** OpenAI's freeform tool (Codex's `apply_patch`): the model writes its input as plain text. */
export const CustomTool = z.strictObject({
  type: z.literal("custom"),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "a custom tool name is 1-64 letters, digits, underscores or dashes"),
  description: z.string().nullish(),
  /** Free text, or text that a Lark or regular-expression grammar accepts (as OpenAI takes it). */
  format: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("text") }),
      z.object({ type: z.literal("grammar"), syntax: z.enum(["lark", "regex"]), definition: z.string() }),
    ])
    .nullish(),
  ...toolExtras,
});
export type CustomTool = z.infer<typeof CustomTool>;

const ToolNames = z.union([z.array(z.string()), z.object({ tool_names: z.array(z.string()).optional() })]);

/** A remote MCP server the server connects to for this response (streamable HTTP). */
export const McpTool = z.object({
  type: z.literal("mcp"),
  server_label: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/, "a server_label is 1-64 letters, digits, underscores or dashes"),
  server_url: z.url({ protocol: /^https?$/ }),
  server_description: z.string().nullish(),
  headers: z.record(z.string(), z.string()).nullish(),
  allowed_tools: ToolNames.nullish(),
  require_approval: z
    .union([
      z.enum(["always", "never"]),
      z.object({
        always: z.object({ tool_names: z.array(z.string()).optional() }).nullish(),
        never: z.object({ tool_names: z.array(z.string()).optional() }).nullish(),
      }),
    ])
    .nullish(),
});
export type McpTool = z.infer<typeof McpTool>;

/**
 * The tool types OpenAI hosts and runs itself (its Responses API's `Tool` union, as the `openai`
 * package defines it): Gyre does not run them. A request may offer them (Codex CLI sends
 * `web_search` and `tool_search`); they are accepted and the model never sees them.
 */
export const HOSTED_TOOL_TYPES = [
  "web_search",
  "web_search_2025_08_26",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer",
  "computer_use_preview",
  "local_shell",
  "shell",
  "apply_patch",
  "tool_search",
  "namespace",
  "programmatic_tool_calling",
] as const;

/** A hosted tool (see {@link HOSTED_TOOL_TYPES}): accepted as it comes, and left out. */
export const HostedTool = z.looseObject({ type: z.enum(HOSTED_TOOL_TYPES) });

/** A request's tool, by its `type`; any other type is refused (`tools[0].type`). */
export const RequestTool = z.discriminatedUnion("type", [FunctionTool, CustomTool, McpTool, HostedTool]);
export type RequestTool = z.infer<typeof RequestTool>;

/** A request's `tool_choice`: whether the model may, must or must not call tools, and which. */
export const ToolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.object({ type: z.literal("function"), name: z.string() }),
  z.object({ type: z.literal("custom"), name: z.string() }),
  z.object({
    type: z.literal("allowed_tools"),
    mode: z.enum(["auto", "required"]),
    tools: z.array(z.object({ type: z.enum(["function", "custom"]), name: z.string() })),
  }),
]);
export type ToolChoice = z.infer<typeof ToolChoice>;

export const TextFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    name: z.string(),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);
export type TextFormat = z.infer<typeof TextFormat>;

/**
 * A spec field Gyre cannot honour (ignored, it would change the answer without a word): only its
 * absence or `null` is accepted; a value is an `unsupported_parameter` 400 that says `why`.
 */
function unsupported(why: string) {
  return z
    .unknown()
    .refine((value) => value == null, { message: why, params: { code: "unsupported_parameter" } })
    .optional();
}

export const CreateResponseRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(InputItem)]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(RequestTool).nullish(),
  tool_choice: ToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(16).nullish(),
  max_tool_calls: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  text: z.object({ format: TextFormat.optional(), verbosity: z.enum(["low", "medium", "high"]).nullish() }).nullish(),
  reasoning: z
    .object({
      effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).nullish(),
      summary: z.enum(["auto", "concise", "detailed"]).nullish(),
    })
    .nullish(),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  /** The conversation the response belongs to: its items come first, and the response's are added to it. */
  conversation: z.union([z.string().min(1), z.object({ id: z.string().min(1) })]).nullish(),
  include: z.array(z.string()).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  truncation: z.enum(["auto", "disabled"]).nullish(),
  service_tier: z.string().nullish(),
  background: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  // Accepted and not acted on: sampling and logprobs Gyre does not pass upstream, hints about
  // the upstream's own caching, compaction and stream obfuscation, and Codex CLI's metadata.
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().nullish() }).nullish(),
  prompt_cache_retention: z.enum(["in_memory", "24h"]).nullish(),
  prompt_cache_options: z.record(z.string(), z.unknown()).nullish(),
  context_management: z.array(z.looseObject({ type: z.string() })).nullish(),
  client_metadata: z.record(z.string(), z.unknown()).nullish(),
  prompt: unsupported("stored prompt templates are not available on this server; send instructions and input"),
  moderation: unsupported("OpenAI's moderation is not available on this server"),
});
export type CreateResponseRequest = z.infer<typeof CreateResponseRequest>;

/** The body of `POST /v1/responses/compact`. */
export const CompactRequest = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(InputItem)]).nullish(),
  previous_response_id: z.string().nullish(),
  instructions: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  prompt_cache_retention: z.enum(["in_memory", "24h"]).nullish(),
  prompt_cache_options: z.record(z.string(), z.unknown()).nullish(),
  service_tier: z.string().nullish(),
});
export type CompactRequest = z.infer<typeof CompactRequest>;

/** Up to 16 key-value pairs, as OpenAI's `metadata`. */
export const Metadata = z
  .record(z.string().max(64), z.string().max(512))
  .refine((metadata) => Object.keys(metadata).length <= 16, "at most 16 pairs");

/** Items added to a conversation at once: up to 20, as OpenAI allows. */
const ConversationItems = z.array(InputItem).max(20);

/** The body of `POST /v1/conversations`. */
export const CreateConversationRequest = z.strictObject({
  items: ConversationItems.nullish(),
  metadata: Metadata.nullish(),
});
export type CreateConversationRequest = z.infer<typeof CreateConversationRequest>;

/** The body of `POST /v1/conversations/{id}`: the new metadata, in place of the old. */
export const UpdateConversationRequest = z.strictObject({ metadata: Metadata.nullable() });

/** The body of `POST /v1/conversations/{id}/items`. */
export const AddConversationItemsRequest = z.strictObject({ items: ConversationItems });

/** The conversation id of a create-response request's `conversation` (an id or `{ id }`). */
export function conversationIdOf(conversation: string | { id: string }): string {
  return typeof conversation === "string" ? conversation : conversation.id;
}
