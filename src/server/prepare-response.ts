import type { Model } from "../model/index.js";
import { callSettings, type ModelFailures, withSettings } from "./call-settings.js";
import { planTools, type ToolPlan } from "./client-tools.js";
import { type Conversation, systemPrompt, toConversation } from "./conversation.js";
import { checkNewItemIds, conversationNotFound } from "./conversations.js";
import { RequestError } from "./errors.js";
import { newId } from "./ids.js";
import { chainItems, inputItems, previousNotFound } from "./input-items.js";
import { checkMcpUrls, McpHostGuard } from "./remote-mcp/index.js";
import { conversationIdOf, type CreateResponseRequest } from "./request-schema.js";
import { initialResponse, type ResponseObject, type StoredInputItem } from "./response-object.js";
import type { BuiltinToolsConfig, RunDependencies } from "./run-dependencies.js";
import { contextBudget, fitConversation } from "./truncation.js";

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
  inConversation?: InConversation;
  /** The hosts the request's `mcp` tools were checked against, and the addresses they are held to. */
  mcpHosts: McpHostGuard;
}

/** A conversation's id, and the ids of the items it had when the response began. */
export interface InConversation {
  id: string;
  known: ReadonlySet<string>;
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
  const { earlier, inConversation } = await earlierItems(deps, request, owner);
  const items = inputItems(request, earlier, newId);
  if (inConversation) {
    const input = request.input;
    const adds = (index: number) => typeof input === "string" || input?.[index]?.type !== "item_reference";
    checkNewItemIds(items, inConversation.known, adds, "input");
  }
  const response = initialResponse(newId("resp"), request, Date.now());
  return planResponse(deps, { owner, request, response, inputItems: items, earlier, inConversation });
}

/** A request's parts once its ids are given: what {@link planResponse} makes a run of. */
export interface ResponseParts {
  owner: string;
  request: CreateResponseRequest;
  response: ResponseObject;
  inputItems: StoredInputItem[];
  /** The items it continues (its conversation's, or its previous response's chain). */
  earlier: StoredInputItem[];
  inConversation: InConversation | undefined;
}

/**
 * The run of a request whose ids are given: its tools checked, its MCP servers' hosts checked
 * and held, its model resolved, its conversation fitted to the model's context. A queued
 * response is planned again by the worker that runs it, from what its job and record hold.
 */
export async function planResponse(deps: RunDependencies, parts: ResponseParts): Promise<PreparedResponse> {
  const { request, earlier, inputItems: items, inConversation } = parts;
  const whole = toConversation([...earlier, ...items]);
  const tools = planTools(request.tools ?? [], request.tool_choice ?? undefined);
  const mcpHosts = new McpHostGuard(deps.mcpAllowedHosts, deps.mcpLookup);
  await checkMcpUrls(request.tools ?? [], mcpHosts);
  checkToolNames(tools, deps.builtin);
  const failures: ModelFailures = {};
  const model = withSettings(await deps.resolveModel(request.model), callSettings(request, tools.toolChoice), failures);
  const budget = contextBudget(
    model,
    systemPrompt(request, whole),
    tools.tools,
    request.max_output_tokens ?? undefined,
  );
  const conversation = budget ? fitConversation(whole, budget, request.truncation ?? "disabled") : whole;
  return {
    owner: parts.owner,
    request,
    response: parts.response,
    inputItems: items,
    conversation,
    tools,
    model,
    failures,
    listed: listedServers([...earlier, ...items]),
    ...(inConversation && { inConversation }),
    mcpHosts,
  };
}

/**
 * The items a request continues: its conversation's (output items read as input items, as a
 * chain's do: they carry the same fields, and a few more), or its previous response's chain.
 * Another key's conversation or response does not exist for this one.
 */
export async function earlierItems(
  deps: RunDependencies,
  request: CreateResponseRequest,
  owner: string,
  /** A queued response's: the conversation's items when it was created (later ones are not its). */
  knownWhenCreated?: ReadonlySet<string>,
): Promise<{ earlier: StoredInputItem[]; inConversation?: InConversation }> {
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
    const all = stored.items as StoredInputItem[];
    const earlier = knownWhenCreated ? all.filter((item) => knownWhenCreated.has(item.id)) : all;
    return { earlier, inConversation: { id, known: new Set(earlier.map((item) => item.id)) } };
  }
  if (request.previous_response_id) {
    const previous = await deps.responses.get(request.previous_response_id);
    if (!previous || previous.owner !== owner) throw previousNotFound(request.previous_response_id);
    return { earlier: await chainItems(deps.responses, previous) };
  }
  return { earlier: [] };
}

/** A client's tool may not take the name of a tool the server runs itself. */
function checkToolNames(tools: ToolPlan, builtin: BuiltinToolsConfig | undefined): void {
  const taken = tools.tools.find((tool) => builtin?.tools.includes(tool.name));
  if (taken)
    throw new RequestError(
      400,
      `The tool name ${taken.name} is taken by a tool the server runs.`,
      "invalid_value",
      "tools",
    );
}

/** The MCP servers whose tools the items list already (`mcp_list_tools`). */
function listedServers(items: readonly StoredInputItem[]): ReadonlySet<string> {
  return new Set(items.flatMap((item) => (item.type === "mcp_list_tools" ? [item.server_label] : [])));
}
