export {
  loadServerConfig,
  type ServerBuiltinTool,
  type ServerConfig,
  type ServerConfigFile,
  serverConfigOf,
  type ServedModel,
} from "./config.js";
export {
  loadToolExecutors,
  type ToolExecutor,
  type ToolExecutorCall,
  type ToolExecutorContext,
  type ToolExecutorModule,
} from "./tool-executors.js";
export { createServer } from "./create-server.js";
export { connectQueue, createWorker, type ResponseWorker, type WorkerConfig } from "./cluster/index.js";
export type {
  GiveUp,
  QueueDepth,
  QueuedRun,
  QueueSettings,
  ResponseEvents,
  ResponseQueue,
  RunJob,
} from "./queue/index.js";
export { attachWebSocket } from "./websocket.js";
export type { CompactResource } from "./compact.js";
export { type ErrorBody, RequestError } from "./errors.js";
export type { KeyLimits } from "./limits.js";
export type { RequestLogEntry } from "./middleware.js";
export { type ServeOptions, type RunningServer, serve } from "./serve.js";
export type { ItemList } from "./list-items.js";
export type { OutputItem, ResponseObject, ResponseStatus, ResponseUsage, StoredInputItem } from "./response-object.js";
export type { ResponseStore, StoredResponse } from "./response-store.js";
export type { AuthVariables } from "./auth.js";
export type { InputItem, ToolChoice } from "./request-schema.js";
export type { ItemStatus, OutputTextPart } from "./response-object.js";
export type { NumberedEvent, StreamEventBody } from "./stream-event.js";

// Types of `gyre` that the signatures above name, so that this entry's users can name them too.
export type {
  AnthropicContentDelta,
  AnthropicStreamEvent,
  APIAssistantMessage,
  ApiUsage,
  AssistantContentBlock,
  CallSettings,
  ConversationRecord,
  ConversationRecords,
  CreateSessionInput,
  Env,
  FileCheckpoint,
  ForkOptions,
  FreeformFormat,
  FreeformTool,
  GyreError,
  GyreErrorCode,
  GyreErrorOptions,
  HistoryEntry,
  JsonObject,
  JsonValue,
  ListSessionsFilter,
  Model,
  ModelApi,
  ModelCallError,
  ModelCallErrorOptions,
  ModelInfo,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ModelTool,
  PricingTable,
  ProviderConfig,
  ProviderOptions,
  RecordData,
  RecordEvent,
  RecordItem,
  ResponseRecord,
  ResponseRecords,
  SandboxSettings,
  SDKMessage,
  ServerCompactionUsage,
  ServerSearchOptions,
  ServerRecords,
  SessionInfo,
  SessionLock,
  SessionStore,
  StopReason,
  StoredMessage,
  ToolInputProblem,
  UpToOptions,
  UserContentBlock,
  AnyTool,
  ClientTool,
  Tool,
  ToolContext,
  ToolOutput,
  ToolResult,
  ToolContent,
  SideEffect,
  ToolEvent,
  ToolSession,
  FoundPath,
  FileGuard,
  TextBlock,
  ImageBlock,
} from "../index.js";
export type { CreateResponseRequest } from "./request-schema.js";
