import { Box, Text } from "ink";
import { useMemo } from "react";
import { Markdown } from "./markdown.js";
import { toolDetail } from "./tool-detail.js";
import { ToolBody } from "./tool-body.js";
import { ToolLine } from "./tool-line.js";
import type { ToolItem, TranscriptItem } from "./transcript.js";

/** Items of a subagent's work shown under its call while collapsed: the latest ones. */
export const COLLAPSED_SUBAGENT_ITEMS = 3;

/**
 * One item of the conversation. `expanded` (Ctrl+O) shows tools' whole output, thinking's
 * text and all of a subagent's work; `waitingId` is the call waiting for approval.
 */
export function TranscriptItemView({
  item,
  waitingId,
  expanded,
}: {
  item: TranscriptItem;
  waitingId: string | undefined;
  expanded: boolean;
}) {
  switch (item.kind) {
    case "user":
      return (
        <Box marginTop={1}>
          <Text color="cyan">❯ </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case "assistant":
      return (
        <Box marginTop={1}>
          <Text color="green">● </Text>
          <Markdown text={item.text} />
        </Box>
      );
    case "thinking":
      return (
        <Box marginTop={1} flexDirection="column">
          <Text dimColor italic>
            ✻ Thinking…{expanded ? "" : " (Ctrl+O to expand)"}
          </Text>
          {expanded ? (
            <Box paddingLeft={2}>
              <Markdown text={item.text} dim />
            </Box>
          ) : null}
        </Box>
      );
    case "tool":
      return <ToolView item={item} waitingId={waitingId} expanded={expanded} />;
    case "notice":
      return (
        <Box marginTop={1}>
          <Text color={item.tone === "error" ? "red" : "gray"}>{item.text}</Text>
        </Box>
      );
  }
}

/** A call's line, what is under it, and the work of the subagent it started, indented. */
function ToolView({ item, waitingId, expanded }: { item: ToolItem; waitingId: string | undefined; expanded: boolean }) {
  const nested = item.subagent?.items ?? [];
  const shown = expanded ? nested : nested.slice(-COLLAPSED_SUBAGENT_ITEMS);
  const hidden = nested.length - shown.length;
  // The item changes in place; its diff is worked out again only when what it shows changes.
  const failed = item.state === "failed";
  const detail = useMemo(() => toolDetail(item, expanded), [item.input, item.output, failed, expanded]);
  return (
    <Box flexDirection="column">
      <ToolLine item={item} waiting={item.id === waitingId} />
      <ToolBody detail={detail} expanded={expanded} />
      {nested.length > 0 ? (
        <Box flexDirection="column" paddingLeft={4}>
          {hidden > 0 ? (
            <Text dimColor>
              … {hidden} earlier {hidden === 1 ? "step" : "steps"} (Ctrl+O to expand)
            </Text>
          ) : null}
          {shown.map((child) => (
            <TranscriptItemView key={child.id} item={child} waitingId={waitingId} expanded={expanded} />
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
