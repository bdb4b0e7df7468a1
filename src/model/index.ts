export { apiKeySource } from "./api-key-source.js";
export { classifyModelError } from "./classify-error.js";
export { CostTracker } from "./cost-tracker.js";
export {
  type CallSettings,
  type FreeformFormat,
  type FreeformTool,
  type ServerSearchOptions,
  type Model,
  type ModelApi,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelTool,
  responseOf,
  type ServerCompactionUsage,
  type ToolInputProblem,
} from "./model.js";
export { ModelCallError, type ModelCallErrorOptions } from "./model-call-error.js";
export {
  DEFAULT_PRICING,
  LATEST_HAIKU,
  LATEST_OPUS,
  LATEST_SONNET,
  lookupModelInfo,
  ModelInfo,
  PRICES_AS_OF,
  type PricingTable,
  Rates,
} from "./pricing.js";
export type { JsonObject, JsonValue, ProviderOptions } from "./provider-options.js";
export { providerKeyEnvNames } from "./provider-key-env.js";
export { BUILTIN_PROVIDERS, ProviderConfig } from "./providers.js";
export { type Env, type ResolveModelOptions, resolveModel } from "./resolve-model.js";
export { type ServableModel, servableModels } from "./servable-models.js";
export { type TextProtocolRules, wrapTextProtocol } from "./text-protocol/index.js";
