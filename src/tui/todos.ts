/** One task of a TodoWrite list, as the screen shows it. */
export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
  activeForm: string;
}

const STATUSES = new Set(["pending", "in_progress", "completed"]);

/** The task list of a TodoWrite call's input; undefined when the input is not one. */
export function todosOf(input: Record<string, unknown>): Todo[] | undefined {
  const { todos } = input;
  if (!Array.isArray(todos)) return undefined;
  const list: Todo[] = [];
  for (const todo of todos as unknown[]) {
    if (typeof todo !== "object" || todo === null) return undefined;
    const { content, status, activeForm } = todo as Record<string, unknown>;
    if (typeof content !== "string" || typeof status !== "string" || !STATUSES.has(status)) return undefined;
    list.push({
      content,
      status: status as Todo["status"],
      activeForm: typeof activeForm === "string" && activeForm.trim() !== "" ? activeForm : content,
    });
  }
  return list;
}

/** `4 tasks, 1 done, 1 in progress`: a TodoWrite call's outcome in a few words. */
export function todoSummary(todos: readonly Todo[]): string {
  const done = todos.filter((todo) => todo.status === "completed").length;
  const active = todos.filter((todo) => todo.status === "in_progress").length;
  const parts = [`${todos.length} ${todos.length === 1 ? "task" : "tasks"}`, `${done} done`];
  if (active > 0) parts.push(`${active} in progress`);
  return `(${parts.join(", ")})`;
}

/** The mark in front of a task: done, in progress or pending, readable without colours. */
export function todoMark(status: Todo["status"]): string {
  return status === "completed" ? "☒" : status === "in_progress" ? "◐" : "☐";
}
