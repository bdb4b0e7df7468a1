import type { SDKTodoMessage } from "../protocol/index.js";

/** One item of the session's task list (TodoWrite). */
export type TodoItem = SDKTodoMessage["todos"][number];

const MARKS: Record<TodoItem["status"], string> = { completed: "[x]", in_progress: "[~]", pending: "[ ]" };

/**
 * The current task list as planning context; undefined when it is empty. Placed last in
 * the system prompt because it changes between turns.
 */
export function todosSection(todos: readonly TodoItem[]): string | undefined {
  if (todos.length === 0) return undefined;
  const lines = todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`);
  return `<todos>
Your current task list ([x] done, [~] in progress, [ ] pending). Keep it up to date with TodoWrite as you work.
${lines.join("\n")}
</todos>`;
}
