import { Box, Text } from "ink";
import type { DiffRow } from "./line-diff.js";
import { TodoList } from "./todo-list.js";
import type { ToolDetail } from "./tool-detail.js";

/** What shows under a tool call's line: its diff, its task list or its whole output. */
export function ToolBody({ detail, expanded }: { detail: ToolDetail; expanded: boolean }) {
  if (detail.kind === "none") return null;
  return (
    <Box flexDirection="row" paddingLeft={2}>
      <Box flexShrink={0}>
        <Text dimColor>⎿ </Text>
      </Box>
      <Box flexDirection="column" flexShrink={1}>
        {detail.kind === "diff" ? (
          detail.rows.map((row, index) => <DiffRowLine key={index} row={row} wrap={expanded} />)
        ) : detail.kind === "todos" ? (
          <TodoList todos={detail.todos} />
        ) : (
          <>
            {detail.lines.map((line, index) => (
              <Text key={index} dimColor>
                {line === "" ? " " : line}
              </Text>
            ))}
            {detail.more > 0 ? <Text dimColor>… {detail.more} more lines</Text> : null}
          </>
        )}
      </Box>
    </Box>
  );
}

/** One diff row: `- ` removed in red, `+ ` added in green, unchanged dim (the marks read without colours). */
function DiffRowLine({ row, wrap }: { row: DiffRow; wrap: boolean }) {
  const mode = wrap ? "wrap" : "truncate-end";
  switch (row.kind) {
    case "removed":
      return (
        <Text color="red" wrap={mode}>
          - {row.text}
        </Text>
      );
    case "added":
      return (
        <Text color="green" wrap={mode}>
          + {row.text}
        </Text>
      );
    case "same":
      return (
        <Text dimColor wrap={mode}>
          {"  "}
          {row.text}
        </Text>
      );
    case "gap":
      return <Text dimColor> ⋮</Text>;
    case "more":
      return (
        <Text dimColor>
          … {row.count} more {row.count === 1 ? "line" : "lines"} (Ctrl+O to expand)
        </Text>
      );
  }
}
