import { Box, type Key, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { applySuggestion, type CompletionToken, completionToken, type Suggestion } from "./completion.js";
import { PASTE_END, PASTE_START, Pastes } from "./paste.js";
import {
  backspace,
  EMPTY,
  type EditorState,
  enter,
  HistoryWalk,
  isOneLine,
  move,
  typeKeys,
  typeText,
} from "./prompt-editor.js";
import { SuggestionList } from "./suggestion-list.js";

export interface PromptKeys {
  onSubmit(text: string): void;
  onInterrupt(): void;
  onCtrlC(): void;
  /** Ctrl+D on an empty prompt. */
  onQuit(): void;
  onCycleMode(): void;
  history: () => readonly string[];
  /** What Tab can complete a `/command` or `@path` token with (empty while the file list loads). */
  suggest(token: CompletionToken): Suggestion[];
}

/**
 * The prompt being typed: multi-line (`\` then Enter, Shift+Enter or Alt+Enter add a line),
 * Up/Down walk the history while it is one line, Enter submits. Inactive while a permission
 * question has the keyboard. Under it, the completions of the `/command` or `@path` being
 * typed: Up/Down choose one, Tab takes it.
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
  const pastes = useRef(new Pastes()).current;
  /** The text of a bracketed paste being received, until its end marker. */
  const pasting = useRef<string | undefined>(undefined);
  const [selected, setSelectedRendered] = useState(0);
  const selection = useRef(0);
  const setSelected = (value: number) => {
    selection.current = value;
    setSelectedRendered(value);
  };
  const completions = (state: EditorState) => {
    const token = completionToken(state);
    return { token, suggestions: token ? keys.suggest(token) : [] };
  };

  const pressEnter = (state: EditorState, newline: boolean) => {
    const next = enter(state, newline);
    setState(next.state);
    if (next.submit !== undefined && next.submit.trim() !== "") {
      walk.reset();
      keys.onSubmit(pastes.expand(next.submit));
    }
  };

  const onKey = (input: string, key: Key): void => {
    const state = latest.current;
    if (input === PASTE_START) {
      pasting.current = "";
      return;
    }
    if (pasting.current !== undefined) {
      // Inside a paste every key is text: Enter is a line end, not a send.
      if (input === PASTE_END) {
        const text = pastes.add(pasting.current);
        pasting.current = undefined;
        return setState(typeText(state, text));
      }
      pasting.current += key.return ? "\n" : key.tab ? "\t" : input;
      return;
    }
    if (key.ctrl && input === "c") return keys.onCtrlC();
    if (key.ctrl && input === "d") {
      if (state.text === "") keys.onQuit();
      return;
    }
    if (key.escape) return keys.onInterrupt();
    if (key.tab && key.shift) return keys.onCycleMode();
    const { token, suggestions } = completions(state);
    if (token && suggestions.length > 0) {
      const chosen = suggestions[Math.min(selection.current, suggestions.length - 1)];
      if (key.tab && chosen) {
        setSelected(0);
        return setState(applySuggestion(state, token, chosen));
      }
      if (key.upArrow) return setSelected((selection.current + suggestions.length - 1) % suggestions.length);
      if (key.downArrow) return setSelected((selection.current + 1) % suggestions.length);
    }
    if (key.return) return pressEnter(state, key.shift || key.meta);
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
    setSelected(0);
    // Text and Enter in one read (`x` then Enter typed ahead, a one-line paste that ends in a
    // line end, Enter then the next keys): the Enter is a key press, as in Claude Code. Other
    // line ends are a paste the terminal did not bracket: they stay new lines, never a send.
    const lines = input.split(/\r\n?|\n/);
    if (lines.length !== 2 || (lines[0] !== "" && lines[1] !== "")) return setState(typeKeys(state, input));
    pressEnter(typeText(state, lines[0] ?? ""), false);
    if (lines[1]) setState(typeText(latest.current, lines[1]));
  };

  useInput(
    (input, key) => {
      // Tab then the next keys in one read (typed ahead while the box drew): the Tab is the
      // key (it takes the completion), the rest is typed after it.
      if (pasting.current === undefined && input.length > 1 && input.startsWith("\t") && !key.ctrl && !key.meta) {
        onKey("", { ...key, tab: true });
        return onKey(input.slice(1), key);
      }
      onKey(input, key);
    },
    { isActive: active },
  );

  const before = state.text.slice(0, state.cursor);
  const at = state.text[state.cursor];
  const after = state.text.slice(state.cursor + 1);
  const { suggestions } = active ? completions(state) : { suggestions: [] };
  // `!command` runs in the shell: the box says so, as Claude Code's bash mode does.
  const shell = state.text.startsWith("!");
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderDimColor={!active} borderColor={shell ? "magenta" : undefined} paddingX={1}>
        <Text color={shell ? "magenta" : "cyan"}>❯ </Text>
        <Text>
          {before}
          <Text inverse>{at === undefined || at === "\n" ? " " : at}</Text>
          {at === "\n" ? "\n" : ""}
          {after}
        </Text>
      </Box>
      <SuggestionList suggestions={suggestions} selected={Math.min(selected, Math.max(0, suggestions.length - 1))} />
    </Box>
  );
}
