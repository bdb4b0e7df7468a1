import { Text } from "ink";
import { useEffect, useState } from "react";
import type { ToolItem } from "./transcript.js";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** One tool call as one line: its state mark, name, what it is about, and how it went. */
export function ToolLine({ item, waiting }: { item: ToolItem; waiting: boolean }) {
  const running = item.state === "running" && !waiting;
  const now = useTicker(running);
  const elapsed = Math.max(0, Math.floor((now - item.startedAt) / 1000));
  const mark =
    item.state === "done" ? (
      <Text color="green">✓</Text>
    ) : item.state === "failed" ? (
      <Text color="red">✗</Text>
    ) : running ? (
      <Text color="yellow">{SPINNER[Math.floor(now / 100) % SPINNER.length]}</Text>
    ) : (
      <Text dimColor>○</Text>
    );
  const tail = waiting
    ? "waiting for approval"
    : item.state === "pending"
      ? "pending"
      : running
        ? `running ${elapsed}s`
        : item.outcome;
  return (
    <Text wrap="truncate-end">
      {mark} <Text bold>{item.name}</Text>
      {item.about ? ` ${item.about}` : ""}
      {tail ? (
        <Text dimColor={item.state !== "failed"} color={item.state === "failed" ? "red" : undefined}>
          {" "}
          {tail}
        </Text>
      ) : null}
    </Text>
  );
}

/** The time, refreshed ten times a second while `active`: drives the spinner and the elapsed seconds. */
function useTicker(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}
