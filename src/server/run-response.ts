import type { SDKAssistantMessage, SDKMessage, SDKResultMessage } from "../protocol/index.js";
import { MemorySessionStore, type SessionStore } from "../sessions/index.js";
import type { CallKind } from "./call-kinds.js";
import { clientToolExecutor, ResponseExecutors } from "./tool-executors.js";
import type { Conversation } from "./conversation.js";
import { asConversationItem, type ConversationStore } from "./conversations.js";
import { newId } from "./ids.js";
import type { ServerMetrics } from "./metrics.js";
import { OutputProjection } from "./output-projection.js";
import type { InConversation, PreparedResponse } from "./prepare-response.js";
import { connectRequestMcp, type ResponseMcp } from "./remote-mcp/index.js";
import type { McpTool, RequestTool } from "./request-schema.js";
import type { ResponseObject, StoredInputItem } from "./response-object.js";
import { serveProject, type StoredResponse } from "./response-store.js";
import { endResponse, endResponseOnError, terminalEvent } from "./response-status.js";
import type { RunDependencies } from "./run-dependencies.js";
import { type RunSession, startRun } from "./run-query.js";
import type { StreamEventBody } from "./stream-event.js";
import { resumeOutput, type Takeover } from "./takeover.js";

/** How a response's run starts, when it is not a new response's first run in this process. */
export interface RunResponseOptions {
  /** The response was stored already (`queued`), by the runner or instance that queued it. */
  stored?: boolean;
  /** A run a lost worker left, taken over: where its stream and its session stopped. */
  takeover?: Takeover;
}

/**
 * Runs the loop for a prepared response: seeds a session with the conversation, streams the
 * model's output as the spec's events through `emit`, and returns the final response (stored
 * unless `store: false`). Aborting `signal` cancels the run; the response ends `cancelled`.
 * An event's `response` and `item` are the run's live objects, as of when it was emitted: a
 * sink that keeps events copies them (`keptEvent`); one that serialises each at once need not.
 */
export async function runResponse(
  deps: RunDependencies,
  prepared: PreparedResponse,
  emit: (event: StreamEventBody) => void,
  signal: AbortSignal,
  options: RunResponseOptions = {},
): Promise<ResponseObject> {
  const { response } = prepared;
  const store = response.store;
  const run: RunSession = { store: runStore(deps, store), session: runSessionOf(deps, prepared) };
  const record: StoredResponse = {
    owner: prepared.owner,
    response,
    inputItems: prepared.inputItems,
    runSessionId: run.session.id,
  };
  // Stored before it runs, so GET shows it `in_progress` (and a crash leaves it visible).
  // A background or queued response is stored already (queued), by its runner.
  if (store) await deps.responses.save(record, { first: !(response.background || options.stored) });
  await runToEnd(deps, prepared, run, emit, signal, options.takeover);
  deps.metrics.responseFinished(response);
  if (store) await deps.responses.save(record);
  else await run.store.close();
  // Before the last event, so that a client's next response in the conversation sees this one.
  // `store: false` too: the conversation is stored, whatever becomes of the response object.
  if (prepared.inConversation && ["completed", "incomplete", "requires_action"].includes(response.status))
    await addToConversation(deps.conversations, prepared.inConversation, prepared.inputItems, response);
  emit({ type: terminalEvent(response), response });
  return response;
}

/**
 * Where the loop keeps the run's messages. With `store`, the server's store: the loop commits
 * each message there as it produces it (a finished model turn, each tool result), so what a
 * run did is in the store while it runs, and one cut short by a crash leaves it. Without,
 * a store of its own in memory, gone when the run ends: the client asked that nothing be kept.
 */
function runStore(deps: RunDependencies, store: boolean): SessionStore {
  return store ? deps.sessions : new MemorySessionStore();
}

function runSessionOf(deps: RunDependencies, prepared: PreparedResponse): RunSession["session"] {
  return {
    id: `${prepared.response.id}-run`,
    cwd: deps.cwd,
    project: serveProject(prepared.owner),
    model: prepared.model.id,
  };
}

/**
 * The run from its first event to the response's status: the request's MCP servers connected,
 * the loop's messages projected as the response's output. However it ends, the response has a
 * status and the MCP connections are closed.
 */
async function runToEnd(
  deps: RunDependencies,
  prepared: PreparedResponse,
  run: RunSession,
  emit: (event: StreamEventBody) => void,
  signal: AbortSignal,
  takeover: Takeover | undefined,
): Promise<void> {
  const { response, conversation } = prepared;
  const ended = deps.metrics.responseStarted();
  if (!takeover?.events.length) {
    emit({ type: "response.created", response });
    emit({ type: "response.in_progress", response });
  }
  const abort = followAbort(signal);
  let mcp: ResponseMcp | undefined;
  const executors = responseExecutors(deps, prepared, () => mcp);
  const kindOf = (name: string) => executors.kindOf(name);
  const projection = new OutputProjection(emit, newId, kindOf);
  const listed = takeover ? resumeOutput(takeover, projection, emit, kindOf, newId, prepared.listed) : prepared.listed;
  response.output = projection.output;
  try {
    mcp = await connectRequestMcp(mcpServersOf(prepared), deps.cwd, abort.controller.signal, prepared.mcpHosts);
    listServers(projection, mcp, listed);
    const offered = await executors.tools({
      responseId: response.id,
      request: prepared.request,
      cwd: deps.cwd,
      signal: abort.controller.signal,
    });
    // A run that ended before its worker was lost ends the response as it is: nothing runs again.
    const result =
      takeover?.ended ??
      (await project(
        await startRun({
          deps,
          prepared,
          tools: offered.tools,
          operatorTools: offered.operatorTools,
          kindOf,
          run,
          abortController: abort.controller,
          continueRun: takeover?.continueRun ?? false,
        }),
        projection,
        conversation,
        deps.metrics,
      ));
    projection.finish();
    if (result?.terminal_reason === "requires_action") projection.requestApprovals(result.pending_tool_calls ?? []);
    endResponse(response, result, signal.aborted, prepared.failures.last, deps.clientToolStatus);
  } catch (error) {
    projection.finish();
    endResponseOnError(response, error, signal.aborted);
  } finally {
    ended();
    abort.stop();
    await mcp?.close();
  }
}

/** Each MCP server in the output (`mcp_list_tools`), unless the chain listed it already and it did not fail. */
function listServers(projection: OutputProjection, mcp: ResponseMcp, listed: ReadonlySet<string>): void {
  for (const listing of mcp.listings)
    if (!listed.has(listing.serverLabel) || listing.error)
      projection.listTools(listing.serverLabel, listing.tools, listing.error);
}

/** The run's own abort: it follows `signal`, which may have aborted already (cancelled while queued). */
function followAbort(signal: AbortSignal): { controller: AbortController; stop: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener("abort", abort, { once: true });
  if (signal.aborted) abort();
  return { controller, stop: () => signal.removeEventListener("abort", abort) };
}

/**
 * The response's tool executors, in order: the client's tools, the operator's built-in tools
 * (by name: the run's set-up makes them, sandboxed), the operator's own executors, the
 * request's MCP servers (connected once the response starts); a call no executor has is refused.
 */
function responseExecutors(
  deps: RunDependencies,
  prepared: PreparedResponse,
  mcp: () => ResponseMcp | undefined,
): ResponseExecutors {
  const executors = new ResponseExecutors();
  const plan = prepared.tools;
  executors.add(clientToolExecutor(plan), (name): CallKind | undefined =>
    plan.allowed.has(name) ? { kind: plan.custom.has(name) ? "custom" : "function" } : { kind: "refused" },
  );
  executors.addBuiltin(deps.builtin?.tools ?? []);
  for (const executor of deps.toolExecutors) executors.add(executor);
  executors.add(
    {
      kind: "mcp",
      tools: () => mcp()?.tools ?? [],
      canExecute: (call) => mcp()?.kinds.has(call.name) ?? false,
    },
    (name) => mcp()?.kinds.get(name),
  );
  return executors;
}

/** The run's top-level messages as the response's output, its tool calls counted; its result, when it gave one. */
async function project(
  messages: AsyncIterable<SDKMessage>,
  projection: OutputProjection,
  conversation: Conversation,
  metrics: ServerMetrics,
): Promise<SDKResultMessage | undefined> {
  const approvals = new Map(
    conversation.pending.filter((call) => call.kind === "approval").map((call) => [call.id, call]),
  );
  let result: SDKResultMessage | undefined;
  for await (const message of messages) {
    if (message.type === "stream_event" && message.parent_tool_use_id === null) projection.onEvent(message.event);
    if (message.type === "user" && message.parent_tool_use_id === null && Array.isArray(message.message.content))
      for (const block of message.message.content)
        if (block.type === "tool_result") projection.onToolResult(block, approvals.get(block.tool_use_id));
    if (message.type === "result") result = message;
    if (message.type === "assistant") countToolCalls(metrics, message);
  }
  return result;
}

/**
 * A finished response's items added to its conversation in one write: its input items (those
 * not in it already: references to its items) and its output. A conversation deleted meanwhile
 * takes nothing.
 */
async function addToConversation(
  conversations: ConversationStore,
  target: InConversation,
  inputItems: readonly StoredInputItem[],
  response: ResponseObject,
): Promise<void> {
  const added = inputItems.filter((item) => !target.known.has(item.id)).map(asConversationItem);
  await conversations.addItems(target.id, [...added, ...structuredClone(response.output)]);
}

function mcpServersOf(prepared: PreparedResponse): McpTool[] {
  return (prepared.request.tools ?? []).filter((tool: RequestTool): tool is McpTool => tool.type === "mcp");
}

/** Every tool call of a model message, subagents' included (server-side and client tools alike). */
function countToolCalls(metrics: ServerMetrics, message: SDKAssistantMessage): void {
  for (const block of message.message.content) if (block.type === "tool_use") metrics.toolCall(block.name);
}
