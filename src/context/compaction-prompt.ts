/** The system prompt of the summary request. */
export const COMPACTION_SYSTEM_PROMPT =
  "You summarize conversations between a user and an AI coding agent so that the agent can continue the work in a fresh context window without losing anything it needs. You write only the summary.";

/** Marks the summary request; tests and logs look for it. */
export const COMPACTION_PROMPT_MARKER = "Your task is to create a detailed summary of the conversation so far";

/**
 * The user message of the summary request: what to summarize, how, and any caller's
 * instructions (PreCompact hooks, manual `/compact <text>`).
 */
export function compactionPrompt(transcript: string, customInstructions?: string): string {
  const custom = customInstructions?.trim()
    ? `\n\nAdditional instructions for this summary:\n${customInstructions.trim()}`
    : "";
  return `${COMPACTION_PROMPT_MARKER}, shown in the transcript below. The agent will continue from your summary alone (plus the original request and the most recent turns), so keep every detail it needs.

Cover, in this order:
1. Primary request and intent: everything the user asked for, in detail.
2. Key technical context: technologies, conventions, constraints discovered.
3. Files and code: files read, created or changed, with the important snippets and why they matter.
4. Errors and fixes: what went wrong and how it was resolved, including user feedback.
5. Work done: what is finished and verified.
6. Pending tasks: what is still to do.
7. Current work: precisely what was being done right before this summary.
8. Next step: the immediate next step, in line with the user's latest request.

Write plain prose and lists. Do not call tools. Do not continue the task.${custom}

<transcript>
${transcript}
</transcript>`;
}

/** The text that carries the summary into the compacted history. */
export function summaryMessage(summary: string): string {
  return `This session continues an earlier conversation that ran out of context. The summary below covers the earlier part of it; the original request is above and the most recent turns follow.

<summary>
${summary.trim()}
</summary>`;
}
