export {
  COMPACTION_PROMPT_MARKER,
  COMPACTION_SYSTEM_PROMPT,
  compactionPrompt,
  summaryMessage,
} from "./compaction-prompt.js";
export {
  type CompactionResult,
  type CompactOptions,
  Compactor,
  type CompactorOptions,
  DEFAULT_CONTEXT_WINDOW,
} from "./compactor.js";
export { type GitInfo, readGitInfo } from "./git-info.js";
export { historyProblems, isValidHistory } from "./history-validity.js";
export {
  findInstructionFiles,
  type InstructionFile,
  PROJECT_INSTRUCTION_FILES,
  projectInstructionsSection,
  USER_INSTRUCTION_FILES,
} from "./project-instructions.js";
export {
  type BuildPromptInput,
  type PromptBuilder,
  type PromptSections,
  type RetrieveContext,
  type RetrieveContextRequest,
  SystemPromptBuilder,
  type SystemPromptBuilderOptions,
} from "./prompt-builder.js";
export { PRUNED_OUTPUT_NOTE, type PruneOptions, type PruneResult, pruneToolOutputs } from "./prune.js";
export {
  type AnthropicServerCompactionOptions,
  anthropicServerCompaction,
  isServerCompactionBlock,
  mergeProviderOptions,
} from "./server-compaction.js";
export {
  buildSystemPrompt,
  DEFAULT_SYSTEM_PROMPT,
  type EnvironmentInfo,
  environmentSection,
  type SystemPromptSpec,
} from "./system-prompt.js";
export { type TodoItem, todosSection } from "./todos-section.js";
export {
  estimateEntryTokens,
  estimateHistoryTokens,
  estimateTextTokens,
  usageTokens,
} from "./token-count.js";
