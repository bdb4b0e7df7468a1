export { COMPACTION_PROMPT_MARKER, COMPACTION_SYSTEM_PROMPT } from "./compaction-prompt.js";
export { type CompactionResult, type CompactOptions, Compactor, type CompactorOptions } from "./compactor.js";
export { historyProblems } from "./history-validity.js";
export { messageWindow } from "./message-window.js";
export { SystemPromptBuilder } from "./prompt-builder.js";
export type { SkillSummary } from "./skills-section.js";
export {
  type AnthropicServerCompactionOptions,
  isServerCompactionBlock,
  mergeProviderOptions,
} from "./server-compaction.js";
export type { TodoItem } from "./todos-section.js";
export { estimateAssistantTokens, estimateTextTokens, estimateUserTokens, IMAGE_TOKENS } from "./token-count.js";
