import { Box, Text } from "ink";
import { type Todo, todoMark } from "./todos.js";

/** A task list: done tasks struck through, the one in progress bold under its active form. */
export function TodoList({ todos }: { todos: readonly Todo[] }) {
  return (
    <Box flexDirection="column">
      {todos.map((todo, index) => (
        <Text key={index} wrap="truncate-end">
          <Text color={todo.status === "completed" ? "green" : todo.status === "in_progress" ? "yellow" : undefined}>
            {todoMark(todo.status)}{" "}
          </Text>
          {todo.status === "completed" ? (
            <Text dimColor strikethrough>
              {todo.content}
            </Text>
          ) : todo.status === "in_progress" ? (
            <Text bold>{todo.activeForm}</Text>
          ) : (
            <Text>{todo.content}</Text>
          )}
        </Text>
      ))}
    </Box>
  );
}

/**
 * The conversation's live task list, above the prompt: redrawn in place each time the model
 * rewrites it, shown while a task is open or a turn runs.
 */
export function TodoPanel({ todos, busy }: { todos: readonly Todo[]; busy: boolean }) {
  const open = todos.some((todo) => todo.status !== "completed");
  if (todos.length === 0 || (!open && !busy)) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text dimColor>Tasks</Text>
      <Box paddingLeft={2}>
        <TodoList todos={todos} />
      </Box>
    </Box>
  );
}
