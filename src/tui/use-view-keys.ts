import { useInput, useStdout } from "ink";
import { useEffect, useRef } from "react";

/** A burst of resize events (a window being dragged) redraws once, after it settles. */
const RESIZE_SETTLE_MS = 100;

/**
 * Keys and events that change how the conversation is shown, whatever has the keyboard:
 * Ctrl+O toggles expanded tool output; a resize redraws everything for the new width.
 */
export function useViewKeys(handlers: { onToggleExpanded(): void; onResize(): void }) {
  // The latest handlers, without subscribing to the stream again at every render.
  const latest = useRef(handlers);
  latest.current = handlers;
  useInput((input, key) => {
    if (key.ctrl && input === "o") latest.current.onToggleExpanded();
  });
  const { stdout } = useStdout();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let width = stdout.columns;
    const resized = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        // Only a change of width changes the layout of what was written once.
        if (stdout.columns === width) return;
        width = stdout.columns;
        latest.current.onResize();
      }, RESIZE_SETTLE_MS);
    };
    stdout.on("resize", resized);
    return () => {
      clearTimeout(timer);
      stdout.off("resize", resized);
    };
  }, [stdout]);
}
