import { Text } from "ink";
import { useEffect, useState } from "react";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 120;

/**
 * While a turn runs and nothing of it is on the move (the model has not started its answer,
 * or is thinking between tool calls): a spinner and the seconds waited, from when this line
 * appeared. Shown only then, so it never competes with streaming text or a running tool.
 */
export function WaitingLine({ now = Date.now }: { now?: () => number }) {
  const [startedAt] = useState(now);
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setFrame((count) => count + 1), FRAME_MS);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.floor((now() - startedAt) / 1000);
  return (
    <Text>
      <Text color="cyan">{FRAMES[frame % FRAMES.length]}</Text>
      <Text dimColor> Waiting for the model… {seconds}s</Text>
    </Text>
  );
}
