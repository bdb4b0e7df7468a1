export * from "./content.js";
export * from "./enums.js";
// The messages' types only: their schemas are a room of their own (./messages), imported by the
// code that parses messages, so that importing this index builds none of them (about 7 ms of
// zod at every start of the CLI).
export type {
  APIAssistantMessage,
  AnthropicContentDelta,
  AnthropicStreamEvent,
  ApiUsage,
  ModelUsage,
  PendingToolCall,
  PermissionDenial,
  SDKApiRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKHandoffMessage,
  SDKHookResponseMessage,
  SDKMessage,
  SDKModelFallbackMessage,
  SDKNoToolCallMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDeniedMessage,
  SDKResultError,
  SDKResultMessage,
  SDKResultSuccess,
  SDKSandboxViolationMessage,
  SDKSystemInitMessage,
  SDKSystemMessage,
  SDKTodoMessage,
  SDKToolProgressMessage,
  SDKUserMessage,
  SDKUserMessageInput,
} from "./messages/index.js";
export type { HistoryEntry } from "./history.js";
export { API_MESSAGE_EXTRAS, apiBlock, apiStreamEvent, apiUsage, resultUsage } from "./api-shapes.js";
export { describeWebSearchResult, webSearchQuery } from "./web-search.js";
