// A run's set-up: options and their schema, what they resolve to, persistence and `query()`.
// Agents (src/agents/) wire themselves in through agent-wiring.ts.
export {
  type AgentDefinition,
  type AgentMcpServerSpec,
  AgentsOption,
  GENERAL_PURPOSE,
  GENERAL_PURPOSE_NAME,
  MODEL_ALIASES,
} from "./agent-definition.js";
export {
  type AgentWiring,
  type AgentWiringInput,
  BuiltRun,
  type ChildSessionStore,
  type WireAgents,
} from "./agent-wiring.js";
export type {
  CanUseTool,
  PermissionHint,
  PermissionResult,
  QueryOptions,
  QueryParams,
  QueryPrompt,
  SystemPromptOption,
  UnaskedCall,
} from "./options.js";
export { DEFAULT_MODEL, type Query, query } from "./query.js";
export type { EffortOption, ThinkingOption } from "./reasoning-options.js";
export { startModel } from "./setup.js";
export { webFetchSettings, webSearchOptions } from "./web-tools.js";
