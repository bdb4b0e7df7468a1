import { z } from "zod";
import type { HistoryEntry } from "../../protocol/index.js";
import { defineTool } from "../define-tool.js";
import type { Tool, ToolResult } from "../tool.js";
import type { ToolSession } from "../tool-session.js";

/** One task of the todo list; `content` and `activeForm` must not be blank. */
export const TodoItem = z.object({
  content: z.string().trim().min(1, "content must not be empty").describe("The task, in imperative form"),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z
    .string()
    .trim()
    .min(1, "activeForm must not be empty")
    .describe('The task in present continuous form, shown while it is in progress (e.g. "Running tests")'),
});
export type TodoItem = z.infer<typeof TodoItem>;

/** TodoWrite input, as in Claude Code: the whole list, replacing the previous one. */
export const TodoWriteInput = z.object({
  todos: z.array(TodoItem).describe("The updated todo list"),
});
export type TodoWriteInput = z.infer<typeof TodoWriteInput>;

/** What the model is told after a successful write (Claude Code's wording). */
export const TODO_WRITE_CONFIRMATION =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your " +
  "progress. Please proceed with the current tasks if applicable";

const DESCRIPTION = `Use this tool to create and manage a structured task list for your current session. It helps you track progress, organize complex tasks and show the user how the work is going.

When to use it:
- A task needs three or more distinct steps, or careful planning.
- The user gives several tasks at once, or asks for a todo list.
- New requirements come up while working: add them as tasks.
- When you start a task, mark it in_progress BEFORE beginning work; when you finish it, mark it completed at once rather than batching completions.

When not to use it: a single straightforward task, or something trivial that takes fewer than three steps.

Rules:
- Each call sends the WHOLE list; it replaces the previous one.
- Every task has content (imperative: "Run tests") and activeForm (present continuous: "Running tests").
- Keep exactly one task in_progress while you work.
- Mark a task completed only when it is fully done: not if tests fail, the work is partial, or errors are unresolved. Add a new task for what blocks you instead.
- Remove tasks that are no longer relevant.`;

const KEY = Symbol("gyre.todos");

interface TodoState {
  todos: TodoItem[];
}

const stateOf = (session: ToolSession) => session.get<TodoState>(KEY, () => ({ todos: [] }));

/** The session's current todo list, as last written by TodoWrite (empty before the first write). */
export function readTodos(session: ToolSession): TodoItem[] {
  return [...stateOf(session).todos];
}

/**
 * A resumed session's todo list: the input of its last TodoWrite call that succeeded (a
 * denied or failed call changed nothing), so the plan is in the system prompt from the first
 * call of the resumed run, as it was when the session stopped.
 */
export function restoreTodos(session: ToolSession, history: readonly HistoryEntry[]): void {
  const failed = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i];
    if (entry?.role === "user") {
      if (typeof entry.content === "string") continue;
      for (const block of entry.content) {
        if (block.type === "tool_result" && block.is_error === true) failed.add(block.tool_use_id);
      }
      continue;
    }
    const blocks = entry?.message.content ?? [];
    for (let j = blocks.length - 1; j >= 0; j--) {
      const block = blocks[j];
      if (block?.type !== "tool_use" || block.name !== "TodoWrite" || failed.has(block.id)) continue;
      const parsed = TodoWriteInput.safeParse(block.input);
      if (!parsed.success) continue;
      stateOf(session).todos = parsed.data.todos.map((todo) => ({ ...todo }));
      return;
    }
  }
}

/**
 * TodoWrite (Claude Code compatible): replaces the session's todo list and emits it as a
 * `todos` event so the caller can show it. Its structured result is `{ oldTodos, newTodos }`.
 */
export function todoWriteTool(): Tool<TodoWriteInput> {
  return defineTool({
    name: "TodoWrite",
    description: DESCRIPTION,
    inputSchema: TodoWriteInput,
    sideEffect: "none",
    execute: (input, context): ToolResult => {
      const state = stateOf(context.session);
      const oldTodos = state.todos;
      const newTodos = input.todos.map((todo) => ({ ...todo }));
      state.todos = newTodos;
      context.emit({ type: "todos", todos: newTodos.map((todo) => ({ ...todo })) });
      return { content: TODO_WRITE_CONFIRMATION, data: { oldTodos, newTodos } };
    },
  });
}
