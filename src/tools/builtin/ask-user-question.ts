import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { Tool, ToolResult } from "../tool.js";

/** One choice of a question: a short label, and what choosing it means. */
export const AskUserQuestionOption = z.object({
  label: z.string().describe("The text the user sees and picks: concise, 1-5 words"),
  description: z.string().describe("What this choice means or what happens if it is chosen (trade-offs)"),
  preview: z.string().optional().describe("Optional content shown while the option is focused (a mockup, a snippet)"),
});
export type AskUserQuestionOption = z.infer<typeof AskUserQuestionOption>;

/** One question with its 2-4 choices, as Claude Code's AskUserQuestion has it. */
export const AskUserQuestionItem = z.object({
  question: z.string().describe("The complete question, clear and specific, ending with a question mark"),
  header: z.string().describe('A very short label shown as a chip (at most 12 characters): "Auth method", "Library"'),
  options: z
    .array(AskUserQuestionOption)
    .min(2)
    .max(4)
    .describe("2-4 distinct choices; do not add an 'Other' choice, the user can always answer in their own words"),
  multiSelect: z.boolean().default(false).describe("Whether the user may pick more than one choice"),
});
export type AskUserQuestionItem = z.infer<typeof AskUserQuestionItem>;

/**
 * AskUserQuestion's input (Claude Code's): 1-4 questions, and the `answers` that whoever asks
 * the user fills in — `canUseTool` returns them in `updatedInput`, keyed by question text,
 * the labels of a multi-select answer joined with ", ".
 */
export const AskUserQuestionInput = z
  .object({
    questions: z.array(AskUserQuestionItem).min(1).max(4).describe("Questions to ask the user (1-4 questions)"),
    answers: z
      .record(z.string(), z.string())
      .optional()
      .describe("The user's answers, filled in by the permission component: leave it out"),
    annotations: z
      .record(z.string(), z.object({ preview: z.string().optional(), notes: z.string().optional() }))
      .optional()
      .describe("Per-question notes from the user, keyed by question text: leave it out"),
    metadata: z.object({ source: z.string().optional() }).optional().describe("For tracking; not shown to the user"),
  })
  .superRefine((input, context) => {
    const questions = input.questions.map((item) => item.question);
    if (new Set(questions).size !== questions.length) {
      context.addIssue({ code: "custom", path: ["questions"], message: "Question texts must be unique" });
    }
    input.questions.forEach((item, index) => {
      const labels = item.options.map((option) => option.label);
      if (new Set(labels).size !== labels.length) {
        context.addIssue({
          code: "custom",
          path: ["questions", index, "options"],
          message: "Option labels must be unique within a question",
        });
      }
    });
  });
export type AskUserQuestionInput = z.infer<typeof AskUserQuestionInput>;

const DESCRIPTION = `Use this tool when you need to ask the user questions during execution. It lets you:
1. Gather user preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices about what direction to take

Usage notes:
- Users can always answer in their own words instead of picking one of the options
- Use multiSelect: true to allow several answers to be selected for a question
- If you recommend a specific option, make it the first option in the list and add "(Recommended)" at the end of its label`;

/** AskUserQuestion's structured result (`tool_use_result`), Claude Code's `AskUserQuestionOutput`. */
export interface AskUserQuestionOutput {
  /** The questions that were asked. */
  questions: AskUserQuestionItem[];
  /** Each question's answer, keyed by question text. */
  answers: Record<string, string>;
  /** The user's notes on their answers, keyed by question text, when the answer carried any. */
  annotations?: AskUserQuestionInput["annotations"];
}

/** What the model is told: each question with its answer, Claude Code's wording. */
export function describeAnswers(answers: Record<string, string>): string {
  const pairs = Object.entries(answers).map(([question, answer]) => `"${question}"="${answer}"`);
  return `User has answered your questions: ${pairs.join(", ")}. You can now continue with the user's answers in mind.`;
}

/**
 * AskUserQuestion (Claude Code compatible): asks the user 1-4 multiple-choice questions. The
 * tool always asks (`requiresUserInteraction`): whoever answers permission questions — the
 * interactive agent's picker, `canUseTool`, a paused run's `approvals` — shows the questions
 * and approves the call with the answers in `updatedInput.answers`. Its structured result is
 * `{ questions, answers, annotations? }` (Claude Code's `AskUserQuestionOutput`).
 */
export function askUserQuestionTool(): Tool<AskUserQuestionInput> {
  const tool = defineTool({
    name: "AskUserQuestion",
    description: DESCRIPTION,
    inputSchema: AskUserQuestionInput,
    sideEffect: "none",
    execute: (input): ToolResult => {
      const answers = input.answers ?? {};
      if (Object.keys(answers).length === 0) {
        return {
          content: "The user did not answer the questions. Ask in plain text, or go on with your best judgement.",
          isError: true,
        };
      }
      const data: AskUserQuestionOutput = {
        questions: input.questions,
        answers,
        ...(input.annotations && { annotations: input.annotations }),
      };
      return { content: describeAnswers(answers), data };
    },
  });
  return { ...tool, requiresUserInteraction: true };
}
