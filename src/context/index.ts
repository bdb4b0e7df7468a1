export { COMPACTION_PROMPT_MARKER, COMPACTION_SYSTEM_PROMPT } from "./compaction-prompt.js";
export {
  type CompactionResult,
  type CompactOptions,
  type Compactor,
  type CompactorOptions,
  DEFAULT_CONTEXT_WINDOW,
  SummaryCompactor,
} from "./compactor.js";
export { historyProblems } from "./history-validity.js";
export { type LoopSectionInput, loopSection } from "./loop-section.js";
export { PLAN_MODE_SECTION, withPlanMode } from "./plan-mode-section.js";
export { messageWindow } from "./message-window.js";
export {
  type BuildPromptInput,
  type PromptBuilder,
  type PromptSections,
  type RetrieveContext,
  type RetrieveContextRequest,
  SystemPromptBuilder,
  type SystemPromptBuilderOptions,
} from "./prompt-builder.js";
export type { SystemPromptSpec } from "./system-prompt.js";
export type { SkillSummary } from "./skills-section.js";
export {
  type AnthropicServerCompactionOptions,
  isServerCompactionBlock,
  mergeProviderOptions,
  serverCompactedHistory,
} from "./server-compaction.js";
export { type TodoItem, todosSection } from "./todos-section.js";
export {
  type ContextDocument,
  type ContextOption,
  type ContextRequest,
  retrievedContextSection,
  type SystemPromptContext,
  type SystemPromptFunction,
} from "./turn-prompt.js";
export {
  estimateAssistantTokens,
  estimateHistoryTokens,
  estimateTextTokens,
  estimateUserTokens,
  IMAGE_TOKENS,
} from "./token-count.js";
