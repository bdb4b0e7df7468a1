import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { DiffRow } from "./line-diff.js";
import type { ToolDetail } from "./tool-detail.js";
import { todoMark } from "./todos.js";

/**
 * What shows under a tool call's line: its diff, its task list or its whole output. Each row
 * is one Text that starts with its gutter (`⎿` on the first), so a narrow terminal truncates
 * (collapsed) or wraps (expanded) it as a whole.
 */
export function ToolBody({ detail, expanded }: { detail: ToolDetail; expanded: boolean }) {
  if (detail.kind === "none") return null;
  const wrap = expanded ? "wrap" : "truncate-end";
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {rowsOf(detail).map((row, index) => (
        <Text key={index} wrap={wrap}>
          <Text dimColor>{index === 0 ? "⎿ " : "  "}</Text>
          {row}
        </Text>
      ))}
    </Box>
  );
}

function rowsOf(detail: Exclude<ToolDetail, { kind: "none" }>): ReactNode[] {
  switch (detail.kind) {
    case "diff":
      return detail.rows.map((row) => diffRow(row));
    case "todos":
      return detail.todos.map((todo) => (
        <Text dimColor={todo.status === "completed"}>
          {todoMark(todo.status)} {todo.status === "in_progress" ? todo.activeForm : todo.content}
        </Text>
      ));
    case "output":
      return [
        ...detail.lines.map((line) => <Text dimColor>{line === "" ? " " : line}</Text>),
        ...(detail.more > 0 ? [<Text dimColor>… {detail.more} more lines</Text>] : []),
      ];
  }
}

/** One diff row: `- ` removed in red, `+ ` added in green, unchanged dim (the marks read without colours). */
function diffRow(row: DiffRow): ReactNode {
  switch (row.kind) {
    case "removed":
      return <Text color="red">- {row.text}</Text>;
    case "added":
      return <Text color="green">+ {row.text}</Text>;
    case "same":
      return <Text dimColor>{`  ${row.text}`}</Text>;
    case "gap":
      return <Text dimColor>{"  ⋮"}</Text>;
    case "more":
      return (
        <Text dimColor>
          … {row.count} more {row.count === 1 ? "line" : "lines"} (Ctrl+O to expand)
        </Text>
      );
  }
}
