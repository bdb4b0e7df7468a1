import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import type { SessionInfo } from "../sessions/index.js";

/** How many sessions the picker lists. */
export const PICKER_SIZE = 10;

/**
 * `/resume`: the recent sessions of this folder, newest first; Up/Down choose, Enter goes on
 * with the one chosen, Esc cancels.
 */
export function SessionPicker({
  sessions,
  onPick,
  onCancel,
}: {
  sessions: readonly SessionInfo[];
  onPick: (session: SessionInfo) => void;
  onCancel: () => void;
}) {
  const [selected, setSelectedState] = useState(0);
  // Keys can come faster than React renders: each reads the latest choice.
  const latest = useRef(0);
  const setSelected = (value: number) => {
    latest.current = value;
    setSelectedState(value);
  };
  useInput((_input, key) => {
    if (key.escape || (key.ctrl && _input === "c")) return onCancel();
    if (key.upArrow) setSelected((latest.current + sessions.length - 1) % sessions.length);
    else if (key.downArrow) setSelected((latest.current + 1) % sessions.length);
    else if (key.return) {
      const session = sessions[latest.current];
      if (session) onPick(session);
    }
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text>Resume a session (Up/Down, Enter; Esc cancels)</Text>
      {sessions.map((session, index) => (
        <Text key={session.id} color={index === selected ? "cyan" : undefined} wrap="truncate-end">
          {index === selected ? "❯" : " "} {when(session.updatedAt)} {String(session.messageCount).padStart(4)} msgs{" "}
          {session.title ?? "(untitled)"}
        </Text>
      ))}
    </Box>
  );
}

function when(updatedAt: number): string {
  return new Date(updatedAt).toISOString().replace("T", " ").slice(0, 16);
}
