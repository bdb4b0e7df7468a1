// Tracing in OpenTelemetry's GenAI semantic conventions over @opentelemetry/api only: the
// application's (or the CLI's) tracer provider records the spans; without one they are no-ops.
export { ATTR, EVENT, providerName } from "./attributes.js";
export { CAPTURE_CONTENT_ENV, captureContent, contentAttribute, type ContentOptions, secretValues } from "./content.js";
export { ChatSpan, type ChatModel, type ChatRequest } from "./chat-span.js";
export { ToolSpan, type TracedCall, type TracedDecision, type TracedHook, type TracedResult } from "./tool-span.js";
export { CompactionSpan, type CompactionDone } from "./compaction-span.js";
export { type AgentStart, type AgentSummary, RunTracing, TRACER_NAME, type TracingOptions } from "./run-tracing.js";
export { contextFromTraceparent, spanContextOf, traceparentOf } from "./trace-context.js";
export { type ChatMeasure, type GenAiInstruments, genAiInstruments, METRIC, recordChat } from "./metrics.js";
