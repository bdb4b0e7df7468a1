import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { backspace, EMPTY, type EditorState, enter, HistoryWalk, isOneLine, move, typeText } from "./prompt-editor.js";

export interface PromptKeys {
  onSubmit(text: string): void;
  onInterrupt(): void;
  onCtrlC(): void;
  /** Ctrl+D on an empty prompt. */
  onQuit(): void;
  onCycleMode(): void;
  history: () => readonly string[];
}

/**
 * The prompt being typed: multi-line (`\` then Enter, Shift+Enter or Alt+Enter add a line),
 * Up/Down walk the history while it is one line, Enter submits. Inactive while a permission
 * question has the keyboard.
 */
export function PromptBox({ keys, active }: { keys: PromptKeys; active: boolean }) {
  const [state, setRendered] = useState<EditorState>(EMPTY);
  // Keys can come faster than React renders (a paste, `text` + Enter in one read): each key
  // edits the latest state, not the one of the last render.
  const latest = useRef(EMPTY);
  const setState = (next: EditorState) => {
    latest.current = next;
    setRendered(next);
  };
  const walk = useRef(new HistoryWalk(keys.history)).current;

  useInput(
    (input, key) => {
      const state = latest.current;
      if (key.ctrl && input === "c") return keys.onCtrlC();
      if (key.ctrl && input === "d") {
        if (state.text === "") keys.onQuit();
        return;
      }
      if (key.escape) return keys.onInterrupt();
      if (key.tab && key.shift) return keys.onCycleMode();
      if (key.return) {
        const next = enter(state, key.shift || key.meta);
        setState(next.state);
        if (next.submit !== undefined && next.submit.trim() !== "") {
          walk.reset();
          keys.onSubmit(next.submit);
        }
        return;
      }
      if (key.upArrow && isOneLine(state)) {
        const older = walk.older(state.text);
        if (older !== undefined) setState({ text: older, cursor: older.length });
        return;
      }
      if (key.downArrow && isOneLine(state)) {
        const newer = walk.newer();
        if (newer !== undefined) setState({ text: newer, cursor: newer.length });
        return;
      }
      if (key.leftArrow) return setState(move(state, -1));
      if (key.rightArrow) return setState(move(state, 1));
      // Most terminals send DEL (0x7f) for Backspace, which Ink names `delete`.
      if (key.backspace || key.delete) return setState(backspace(state));
      if (key.ctrl || key.meta || key.tab || !input) return;
      setState(typeText(state, input));
    },
    { isActive: active },
  );

  const before = state.text.slice(0, state.cursor);
  const at = state.text[state.cursor];
  const after = state.text.slice(state.cursor + 1);
  return (
    <Box borderStyle="round" borderDimColor={!active} paddingX={1}>
      <Text color="cyan">❯ </Text>
      <Text>
        {before}
        <Text inverse>{at === undefined || at === "\n" ? " " : at}</Text>
        {at === "\n" ? "\n" : ""}
        {after}
      </Text>
    </Box>
  );
}
