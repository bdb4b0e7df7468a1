import { randomUUID } from "node:crypto";
import { query } from "../agents/index.js";
import type { EffortOption, Query, QueryOptions } from "../run/index.js";
import type { SDKUserMessageInput } from "../protocol/index.js";
import type { SessionStore } from "../sessions/index.js";
import type { AnyTool } from "../tools/index.js";
import type { KindOf } from "./call-kinds.js";
import { type Conversation, systemPrompt } from "./conversation.js";
import type { PreparedResponse } from "./prepare-response.js";
import type { CreateResponseRequest } from "./request-schema.js";
import type { RunDependencies } from "./run-dependencies.js";
import { type SeedInput, seedSession } from "./seed-session.js";

/**
 * Where a response's run keeps its session, seeded with the conversation: the server's store
 * (the loop commits each message to it as it goes), or, with `store: false`, one in memory.
 */
export interface RunSession {
  store: SessionStore;
  session: SeedInput["session"];
}

/** What one response's run is made of. */
export interface RunInput {
  deps: RunDependencies;
  prepared: PreparedResponse;
  /** The response's tools from its executors (the client's, the operator's own, its MCP servers'). */
  tools: readonly (AnyTool | string)[];
  /** Names of the operator's executors' tools: allowed (the operator registered them). */
  operatorTools: readonly string[];
  kindOf: KindOf;
  run: RunSession;
  abortController: AbortController;
  /**
   * The run goes on from its session, which a lost worker left (`continueRun`): a committed
   * model turn is not requested again, a committed tool result not run again.
   */
  continueRun?: boolean;
}

/**
 * Gyre's loop for one response: the session seeded with the conversation (as a paused run when
 * it ends in calls), then resumed with its last user turn as the prompt (answers to the calls it
 * waits on, and any text), under the server's settings and the request's.
 */
export async function startRun(input: RunInput): Promise<Query> {
  const { conversation } = input.prepared;
  if (input.continueRun) return query({ prompt: "", options: { ...runOptions(input), continueRun: true } });
  await seedSession({
    store: input.run.store,
    session: input.run.session,
    turns: conversation.seed,
    pending: conversation.pending,
    newId: randomUUID,
  });
  return query({ prompt: promptOf(conversation), options: runOptions(input) });
}

function runOptions(input: RunInput): QueryOptions {
  const { deps, prepared } = input;
  return {
    model: prepared.model,
    systemPrompt: systemPrompt(prepared.request, prepared.conversation),
    ...toolOptions(input),
    // The input was fitted to the context window (`truncation`) before the run; one that still
    // outgrows it fails with context_length_exceeded, as at OpenAI, instead of being summarized.
    compaction: false,
    maxTurns: deps.maxTurns,
    maxSubagentDepth: 0,
    strictMcpConfig: true,
    includePartialMessages: true,
    sessionStore: input.run.store,
    resume: input.run.session.id,
    cwd: deps.cwd,
    abortController: input.abortController,
    ...requestOptions(prepared.request),
  };
}

/** The client's tools, the operator's built-in tools and the MCP servers' tools, and who may run what. */
function toolOptions({ deps, prepared, tools, operatorTools, kindOf }: RunInput): QueryOptions {
  const { conversation } = prepared;
  return {
    tools: [...tools],
    permissionMode: "default",
    allowedTools: [...(deps.builtin?.allow ?? []), ...operatorTools],
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
  };
}

/**
 * The request's own settings: output limit, reasoning effort, parallel tool calls. An answer
 * cut at the request's `max_output_tokens` ends the response `incomplete`, as OpenAI's does,
 * instead of being continued past the limit the client asked for.
 */
function requestOptions(request: CreateResponseRequest): QueryOptions {
  const effort = effortOf(request);
  return {
    ...(request.max_output_tokens != null && {
      maxOutputTokens: request.max_output_tokens,
      maxTokensContinuations: 0,
    }),
    ...(effort && { effort }),
    // Each provider reads its own key and ignores the other's.
    ...(request.parallel_tool_calls === false && {
      providerOptions: { anthropic: { disableParallelToolUse: true }, openai: { parallelToolCalls: false } },
    }),
  };
}

/** `reasoning.effort` in Gyre's terms; `none` (and no reasoning) leaves the model's default. */
function effortOf(request: CreateResponseRequest): EffortOption | undefined {
  const effort = request.reasoning?.effort;
  if (!effort || effort === "none") return undefined;
  return effort === "minimal" ? "low" : effort;
}

/** The conversation's last user turn as the run's prompt. */
async function* promptOf(conversation: Conversation): AsyncGenerator<SDKUserMessageInput> {
  yield { type: "user", message: { role: "user", content: conversation.prompt } };
}
