import { randomUUID } from "node:crypto";
import type { Model } from "../model/index.js";
import { type EffortOption, query } from "../loop/index.js";
import type { SDKAssistantMessage, SDKResultMessage, SDKUserMessageInput } from "../protocol/index.js";
import type { SandboxSettings } from "../sandbox/index.js";
import { MemorySessionStore, type SessionStore } from "../sessions/index.js";
import { errorMessage } from "../errors/index.js";
import { CONTEXT_EXCEEDED, contextExceeded, RequestError } from "./errors.js";
import type { CallKind } from "./call-kinds.js";
import { checkMcpUrls, connectRequestMcp, McpHostGuard, type McpLookup, type ResponseMcp } from "./remote-mcp/index.js";
import type { McpTool, RequestTool } from "./request-schema.js";
import { callSettings, type ModelFailures, withSettings } from "./call-settings.js";
import { planTools, type ToolPlan } from "./client-tools.js";
import { type Conversation, toConversation } from "./conversation.js";
import { asConversationItem, checkNewItemIds, type ConversationStore, conversationNotFound } from "./conversations.js";
import type { ServerMetrics } from "./metrics.js";
import { chainItems, inputItems, previousNotFound } from "./input-items.js";
import { OutputProjection } from "./output-projection.js";
import type { StreamEventBody } from "./stream-event.js";
import { conversationIdOf, type CreateResponseRequest } from "./request-schema.js";
import { initialResponse, type ResponseObject, responseUsage, type StoredInputItem } from "./response-object.js";
import { type ResponseStore, serveProject } from "./response-store.js";
import { seedSession } from "./seed-session.js";
import { contextBudget, fitConversation } from "./truncation.js";

/** What a response runs with: the server's stores, limits and model resolution. */
export interface RunDependencies {
  sessions: SessionStore;
  responses: ResponseStore;
  conversations: ConversationStore;
  resolveModel: (spec: string) => Promise<Model>;
  maxTurns: number;
  /** Where runs work: the built-in tools' workspace. */
  cwd: string;
  metrics: ServerMetrics;
  /** The operator's built-in tools, their permission rules and sandbox. */
  builtin?: BuiltinToolsConfig;
  /** Hosts requests' `mcp` tools may reach (default: public ones only). */
  mcpAllowedHosts?: readonly string[];
  /** How `mcp` tools' host names are resolved (default: the system resolver). */
  mcpLookup?: McpLookup;
}

export interface BuiltinToolsConfig {
  tools: readonly string[];
  allow: readonly string[];
  deny: readonly string[];
  sandbox?: SandboxSettings;
}

/** A checked request, ready to run: everything that can be refused with a 400 or 404 was checked. */
export interface PreparedResponse {
  owner: string;
  request: CreateResponseRequest;
  response: ResponseObject;
  inputItems: StoredInputItem[];
  conversation: Conversation;
  tools: ToolPlan;
  model: Model;
  /** Why the upstream model failed, when it did. */
  failures: ModelFailures;
  /** MCP servers the chain already listed (`mcp_list_tools`): not listed again, as OpenAI does. */
  listed: ReadonlySet<string>;
  /** The conversation the response belongs to, and the ids of the items it had when the response began. */
  inConversation?: { id: string; known: ReadonlySet<string> };
  /** The hosts the request's `mcp` tools were checked against, and the addresses they are held to. */
  mcpHosts: McpHostGuard;
}

export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}

/**
 * Checks a request against the stored chain and resolves its model. Throws a `RequestError`
 * (unknown previous response, an input that does not fit the conversation, a bad tool choice)
 * or a model resolution error, before anything runs or is stored.
 */
export async function prepareResponse(
  deps: RunDependencies,
  request: CreateResponseRequest,
  owner: string,
): Promise<PreparedResponse> {
  let earlier: StoredInputItem[] = [];
  let inConversation: PreparedResponse["inConversation"];
  if (request.conversation) {
    if (request.previous_response_id)
      throw new RequestError(
        400,
        "conversation and previous_response_id cannot be used together.",
        "invalid_value",
        "conversation",
      );
    const id = conversationIdOf(request.conversation);
    const stored = await deps.conversations.get(id);
    if (!stored || stored.owner !== owner) throw conversationNotFound(id, "conversation");
    // Output items read as input items, as a chain's do: they carry the same fields, and a few more.
    earlier = stored.items as StoredInputItem[];
    inConversation = { id, known: new Set(earlier.map((item) => item.id)) };
  } else if (request.previous_response_id) {
    const previous = await deps.responses.get(request.previous_response_id);
    // Another key's response does not exist for this one.
    if (!previous || previous.owner !== owner) throw previousNotFound(request.previous_response_id);
    earlier = await chainItems(deps.responses, previous);
  }
  const items = inputItems(request, earlier, newId);
  if (inConversation) {
    const input = request.input;
    const adds = (index: number) => typeof input === "string" || input?.[index]?.type !== "item_reference";
    checkNewItemIds(items, inConversation.known, adds, "input");
  }
  const whole = toConversation([...earlier, ...items]);
  const tools = planTools(request.tools ?? [], request.tool_choice ?? undefined);
  const mcpHosts = new McpHostGuard(deps.mcpAllowedHosts, deps.mcpLookup);
  await checkMcpUrls(request.tools ?? [], mcpHosts);
  const taken = tools.tools.find((tool) => deps.builtin?.tools.includes(tool.name));
  if (taken)
    throw new RequestError(
      400,
      `The tool name ${taken.name} is taken by a tool the server runs.`,
      "invalid_value",
      "tools",
    );
  const failures: ModelFailures = {};
  const model = withSettings(await deps.resolveModel(request.model), callSettings(request, tools.toolChoice), failures);
  const budget = contextBudget(
    model,
    systemPrompt(request, whole),
    tools.tools,
    request.max_output_tokens ?? undefined,
  );
  const conversation = budget ? fitConversation(whole, budget, request.truncation ?? "disabled") : whole;
  const response = initialResponse(newId("resp"), request, Date.now());
  const listed = new Set(
    [...earlier, ...items].flatMap((item) => (item.type === "mcp_list_tools" ? [item.server_label] : [])),
  );
  return {
    owner,
    request,
    response,
    inputItems: items,
    conversation,
    tools,
    model,
    failures,
    listed,
    ...(inConversation && { inConversation }),
    mcpHosts,
  };
}

/**
 * Runs the loop for a prepared response: seeds a session with the conversation, streams the
 * model's output as the spec's events through `emit`, and returns the final response (stored
 * unless `store: false`). Aborting `signal` cancels the run; the response ends `cancelled`.
 */
export async function runResponse(
  deps: RunDependencies,
  prepared: PreparedResponse,
  emit: (event: StreamEventBody) => void,
  signal: AbortSignal,
): Promise<ResponseObject> {
  const { response, conversation, request } = prepared;
  const store = response.store;
  // The loop runs on a session in memory, seeded with the conversation; with `store` it is
  // written to the server's store whole when the run ends (one commit, not one per message).
  // The response record, stored as it starts and ends, is what continuations read.
  const sessions = new MemorySessionStore();
  const runSessionId = `${response.id}-run`;
  const runSession = {
    id: runSessionId,
    cwd: deps.cwd,
    project: serveProject(prepared.owner),
    model: prepared.model.id,
  };
  const record = { owner: prepared.owner, response, inputItems: prepared.inputItems, runSessionId };
  // Stored before it runs, so GET shows it `in_progress` (and a crash leaves it visible).
  // A background response is stored already (queued), by its runner.
  if (store) await deps.responses.save(record, { first: !response.background });
  const ended = deps.metrics.responseStarted();
  emit({ type: "response.created", response: structuredClone(response) });
  emit({ type: "response.in_progress", response: structuredClone(response) });
  const abortController = new AbortController();
  const abort = () => abortController.abort();
  signal.addEventListener("abort", abort, { once: true });
  if (signal.aborted) abort(); // cancelled while queued
  let mcp: ResponseMcp | undefined;
  const kindOf = (name: string): CallKind => {
    if (prepared.tools.allowed.has(name)) return { kind: prepared.tools.custom.has(name) ? "custom" : "function" };
    if (deps.builtin?.tools.includes(name)) return { kind: "builtin" };
    return mcp?.kinds.get(name) ?? { kind: "refused" };
  };
  const projection = new OutputProjection(emit, newId, kindOf);
  response.output = projection.output;
  const approvals = new Map(
    conversation.pending.filter((call) => call.kind === "approval").map((call) => [call.id, call]),
  );
  let result: SDKResultMessage | undefined;
  try {
    const servers = (request.tools ?? []).filter(isMcpTool);
    mcp = await connectRequestMcp(servers, deps.cwd, abortController.signal, prepared.mcpHosts);
    for (const listing of mcp.listings)
      if (!prepared.listed.has(listing.serverLabel) || listing.error)
        projection.listTools(listing.serverLabel, listing.tools, listing.error);
    await seedSession({
      store: sessions,
      session: runSession,
      turns: conversation.seed,
      pending: conversation.pending,
      newId: randomUUID,
    });
    const run = query({
      prompt: promptOf(conversation),
      options: {
        model: prepared.model,
        systemPrompt: systemPrompt(request, conversation),
        tools: [...prepared.tools.tools, ...(deps.builtin?.tools ?? []), ...mcp.tools],
        permissionMode: "default",
        allowedTools: [...(deps.builtin?.allow ?? [])],
        disallowedTools: [...(deps.builtin?.deny ?? [])],
        ...(deps.builtin?.sandbox && { sandbox: deps.builtin.sandbox }),
        // Nobody is there to ask: an MCP call that needs approval waits for the client's answer
        // (mcp_approval_request); anything else the rules do not allow is refused.
        canUseTool: async (name) => {
          const kind = kindOf(name);
          if (kind.kind === "mcp") return kind.approval ? { behavior: "defer" } : { behavior: "allow" };
          return { behavior: "deny", message: `${name} is not allowed by this server's permission rules.` };
        },
        ...(Object.keys(conversation.approvals).length > 0 && { approvals: conversation.approvals }),
        // The input was fitted to the context window (`truncation`) before the run; one that still
        // outgrows it fails with context_length_exceeded, as at OpenAI, instead of being summarized.
        compaction: false,
        maxTurns: deps.maxTurns,
        maxSubagentDepth: 0,
        strictMcpConfig: true,
        includePartialMessages: true,
        sessionStore: sessions,
        resume: runSessionId,
        cwd: deps.cwd,
        abortController,
        ...(request.max_output_tokens != null && { maxOutputTokens: request.max_output_tokens }),
        ...(effortOf(request) && { effort: effortOf(request) }),
        // Each provider reads its own key and ignores the other's.
        ...(request.parallel_tool_calls === false && {
          providerOptions: { anthropic: { disableParallelToolUse: true }, openai: { parallelToolCalls: false } },
        }),
      },
    });
    for await (const message of run) {
      if (message.type === "stream_event" && message.parent_tool_use_id === null) projection.onEvent(message.event);
      if (message.type === "user" && message.parent_tool_use_id === null && Array.isArray(message.message.content))
        for (const block of message.message.content)
          if (block.type === "tool_result") projection.onToolResult(block, approvals.get(block.tool_use_id));
      if (message.type === "result") result = message;
      if (message.type === "assistant") countToolCalls(deps.metrics, message);
    }
    projection.finish();
    if (result?.terminal_reason === "requires_action") projection.requestApprovals(result.pending_tool_calls ?? []);
    finish(response, result, signal.aborted);
    if (response.status === "failed" && contextExceeded(prepared.failures.last))
      response.error = { code: CONTEXT_EXCEEDED, message: errorMessage(prepared.failures.last) };
  } catch (error) {
    projection.finish();
    response.status = signal.aborted ? "cancelled" : "failed";
    response.error = signal.aborted
      ? null
      : { code: "server_error", message: error instanceof Error ? error.message : String(error) };
  } finally {
    ended();
    signal.removeEventListener("abort", abort);
    await mcp?.close();
  }
  deps.metrics.responseFinished(response);
  if (store) {
    await deps.sessions.createSession(runSession, await sessions.getSessionMessages(runSessionId));
    await deps.responses.save(record);
  }
  // Before the last event, so that a client's next response in the conversation sees this one.
  // `store: false` too: the conversation is stored, whatever becomes of the response object.
  if (prepared.inConversation && (response.status === "completed" || response.status === "incomplete"))
    await addToConversation(deps.conversations, prepared.inConversation, prepared.inputItems, response);
  await sessions.close();
  emit({ type: terminalEvent(response), response: structuredClone(response) });
  return response;
}

/**
 * A finished response's items added to its conversation in one write: its input items (those
 * not in it already: references to its items) and its output. A conversation deleted meanwhile
 * takes nothing.
 */
async function addToConversation(
  conversations: ConversationStore,
  target: { id: string; known: ReadonlySet<string> },
  inputItems: readonly StoredInputItem[],
  response: ResponseObject,
): Promise<void> {
  const added = inputItems.filter((item) => !target.known.has(item.id)).map(asConversationItem);
  await conversations.addItems(target.id, [...added, ...structuredClone(response.output)]);
}

/** `instructions` apply to this response only (a continuation does not inherit them), as OpenAI does. */
function systemPrompt(request: CreateResponseRequest, conversation: Conversation): string {
  return [...(request.instructions ? [request.instructions] : []), ...conversation.system].join("\n\n");
}

function isMcpTool(tool: RequestTool): tool is McpTool {
  return tool.type === "mcp";
}

/** The conversation's last user turn as the run's prompt (answers to the calls it waits on, and any text). */
async function* promptOf(conversation: Conversation): AsyncGenerator<SDKUserMessageInput> {
  yield { type: "user", message: { role: "user", content: conversation.prompt } };
}

/** Every tool call of a model message, subagents' included (server-side and client tools alike). */
function countToolCalls(metrics: ServerMetrics, message: SDKAssistantMessage): void {
  for (const block of message.message.content) if (block.type === "tool_use") metrics.toolCall(block.name);
}

/** `reasoning.effort` in Gyre's terms; `none` (and no reasoning) leaves the model's default. */
function effortOf(request: CreateResponseRequest): EffortOption | undefined {
  const effort = request.reasoning?.effort;
  if (!effort || effort === "none") return undefined;
  return effort === "minimal" ? "low" : effort;
}

/** The run's result as the response's status, usage and error. */
function finish(response: ResponseObject, result: SDKResultMessage | undefined, aborted: boolean): void {
  response.completed_at = Math.floor(Date.now() / 1000);
  if (result) response.usage = responseUsage(result.usage, result.total_cost_usd);
  const reason = result?.terminal_reason;
  if (aborted || reason === "interrupted") {
    response.status = "cancelled";
  } else if (reason === "max_tokens") {
    response.status = "incomplete";
    response.incomplete_details = { reason: "max_output_tokens" };
  } else if (
    reason === "max_turns" ||
    reason === "max_budget" ||
    reason === "doom_loop" ||
    reason === "context_overflow"
  ) {
    response.status = "incomplete";
    response.incomplete_details = { reason };
  } else if (result && !result.is_error) {
    response.status = "completed";
  } else {
    response.status = "failed";
    response.error = {
      code: reason === "model_error" ? "server_error" : (reason ?? "server_error"),
      message: result?.errors?.join("; ") || "The run failed.",
    };
  }
}

function terminalEvent(response: ResponseObject): string {
  if (response.status === "completed") return "response.completed";
  if (response.status === "incomplete") return "response.incomplete";
  return "response.failed";
}
