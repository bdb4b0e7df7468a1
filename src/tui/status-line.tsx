import { Box, Text } from "ink";
import type { StatusInfo } from "./tui-store.js";

/**
 * Model, permission mode, session cost and context used, one line under the prompt; and, when
 * a folder that is not trusted asks for more than it gets, that its settings are ignored.
 */
export function StatusLine({ status, hint }: { status: StatusInfo; hint: string | undefined }) {
  const context = status.contextPercent === undefined ? "" : ` · context ${status.contextPercent}%`;
  return (
    <Box justifyContent="space-between">
      <Text dimColor wrap="truncate-end">
        {status.model} · <Text color={status.mode === "default" ? undefined : "magenta"}>{status.mode}</Text> · $
        {status.costUsd.toFixed(4)}
        {context}
        {status.untrusted ? <Text color="yellow"> · folder not trusted</Text> : null}
      </Text>
      <Text dimColor wrap="truncate-end">
        {hint ?? (status.busy ? "Esc to interrupt" : "Shift+Tab: mode · /help")}
      </Text>
    </Box>
  );
}
