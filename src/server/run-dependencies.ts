import type { Env, Model } from "../model/index.js";
import type { SandboxSettings } from "../sandbox/index.js";
import { GyreError } from "../errors/index.js";
import { MemorySessionStore, type ServerRecords, type SessionStore } from "../sessions/index.js";
import type { ServerBuiltinTool, ServerConfig } from "./config.js";
import { type ConversationStore, RecordConversationStore } from "./conversations.js";
import { asModelNotFound, ModelNotFoundError } from "./errors.js";
import { ServerMetrics } from "./metrics.js";
import type { McpLookup } from "./remote-mcp/index.js";
import { resolveOnce } from "./resolve-once.js";
import { RecordResponseStore, type ResponseStore } from "./response-store.js";
import type { ToolExecutor } from "./tool-executors.js";

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
  /** The operator's own tool executors (`toolExecutors`), after the built-in tools and before MCP servers'. */
  toolExecutors: readonly ToolExecutor[];
  /** Hosts requests' `mcp` tools may reach (default: public ones only). */
  mcpAllowedHosts?: readonly string[];
  /** How `mcp` tools' host names are resolved (default: the system resolver). */
  mcpLookup?: McpLookup;
  /** The status of a response that ends waiting on the client's tools (the config's `clientToolStatus`). */
  clientToolStatus: "completed" | "requires_action";
}

export interface BuiltinToolsConfig {
  tools: readonly string[];
  allow: readonly string[];
  deny: readonly string[];
  sandbox?: SandboxSettings;
}

/** A server config's answer to what every response runs with (an in-memory store unless it names one). */
export function runDependencies(config: ServerConfig, env: Env): RunDependencies {
  const sessions = config.sessionStore ?? new MemorySessionStore();
  const records = recordsOf(sessions);
  return {
    sessions,
    responses: new RecordResponseStore(records.responses, sessions),
    conversations: new RecordConversationStore(records.conversations),
    resolveModel: servedModels(config, env),
    maxTurns: config.maxTurns ?? 10,
    clientToolStatus: config.clientToolStatus ?? "completed",
    cwd: config.workspace ?? config.cwd ?? process.cwd(),
    metrics: new ServerMetrics(),
    toolExecutors: config.toolExecutors ?? [],
    ...(config.mcpAllowedHosts && { mcpAllowedHosts: config.mcpAllowedHosts }),
    ...(config.mcpLookup && { mcpLookup: config.mcpLookup }),
    ...(config.tools?.length && { builtin: builtinTools(config.tools, config) }),
  };
}

/** The store's tables for responses and conversations: a store of Gyre's has them, another may not. */
function recordsOf(sessions: SessionStore): ServerRecords {
  if (sessions.records) return sessions.records;
  throw new GyreError(
    "config_error",
    "createServer: the sessionStore keeps no server records (`records`); use one of Gyre's stores (memory, SQLite, PostgreSQL)",
  );
}

/**
 * A request's `model` resolved: a name of the config's `models` to the model behind it, any
 * other name as a Gyre model string, unless only listed names may be asked for. A name the
 * server cannot serve (not listed, no such provider or family, no key) is a 404 `model_not_found`.
 */
function servedModels(config: ServerConfig, env: Env): (name: string) => Promise<Model> {
  const models = config.models ?? [];
  const onlyListed = config.onlyListedModels ?? models.length > 0;
  const resolve = config.resolveModel ?? resolveOnce(env, config);
  return async (name) => {
    const served = models.find((model) => model.name === name);
    if (!served && onlyListed) throw new ModelNotFoundError(name, "it is not one of the models GET /v1/models lists.");
    return resolve(served?.model ?? name).catch((error: unknown) => {
      throw asModelNotFound(name, error);
    });
  };
}

function builtinTools(tools: readonly ServerBuiltinTool[], config: ServerConfig): BuiltinToolsConfig {
  return {
    tools,
    allow: config.permissions?.allow ?? [],
    deny: config.permissions?.deny ?? [],
    ...(config.sandbox && { sandbox: config.sandbox }),
  };
}
