import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { AnyTool } from "../tool.js";

export const TaskCompletionInput = z.strictObject({
  result: z.string().min(1).describe("The final result of the task, as the person should read it."),
});

export const AskQuestionInput = z.strictObject({
  question: z.string().min(1).describe("The question for the person."),
  options: z.array(z.string().min(1)).optional().describe("Suggested answers, when the choice is among a few."),
});

export const ConverseInput = z.strictObject({
  message: z.string().min(1).describe("What to say to the person."),
});

/** Names of the loop-control tools, for `stopAtTools`-like checks and reminders. */
export const LOOP_CONTROL_TOOLS = ["task_completion", "ask_question", "converse"] as const;
export type LoopControlToolName = (typeof LOOP_CONTROL_TOOLS)[number];

/**
 * Tools that end the loop on purpose: the model declares the task done, asks the person a
 * question, or replies conversationally. With them on, an answer without any tool call is
 * met with a reminder instead of ending the run. `only`: just these of them.
 */
export function loopControlTools(only?: readonly LoopControlToolName[]): AnyTool[] {
  const tools = [
    defineTool({
      name: "task_completion",
      description:
        "Call this when the task is complete, with the final result. This ends your work on the task; " +
        "do not call it until you have verified the work.",
      inputSchema: TaskCompletionInput,
      sideEffect: "none",
      execute: ({ result }) => ({ content: "Task marked complete.", endRun: { result } }),
    }),
    defineTool({
      name: "ask_question",
      description:
        "Ask the person a question when you cannot proceed without their answer (a missing requirement, " +
        "a choice only they can make). Your turn ends; their answer arrives as the next message.",
      inputSchema: AskQuestionInput,
      sideEffect: "none",
      execute: ({ question, options }) => ({
        content: "Question sent to the person; their answer will follow as the next message.",
        endRun: { result: question, question: { question, ...(options ? { options } : {}) } },
      }),
    }),
    defineTool({
      name: "converse",
      description: "Reply to the person conversationally when the message needs an answer rather than work.",
      inputSchema: ConverseInput,
      sideEffect: "none",
      execute: ({ message }) => ({ content: "Message delivered.", endRun: { result: message } }),
    }),
  ];
  return only ? tools.filter((tool) => (only as readonly string[]).includes(tool.name)) : tools;
}
