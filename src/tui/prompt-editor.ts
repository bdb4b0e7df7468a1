/** The prompt being typed: its text and where the cursor is (an index into the text). */
export interface EditorState {
  text: string;
  cursor: number;
}

export const EMPTY: EditorState = { text: "", cursor: 0 };

export function insert(state: EditorState, input: string): EditorState {
  // Pasted text arrives with carriage returns for its line ends.
  const text = input.replace(/\r\n?/g, "\n");
  return {
    text: state.text.slice(0, state.cursor) + text + state.text.slice(state.cursor),
    cursor: state.cursor + text.length,
  };
}

/**
 * Typed or pasted input that Ink passed on unnamed: several keys can come in one read (a
 * paste, a burst of Backspaces, Ctrl+D then Backspace), so each character is applied in
 * turn: DEL and BS erase, line ends become new lines, other control characters are dropped
 * (never inserted invisibly).
 */
export function typeText(state: EditorState, input: string): EditorState {
  let next = state;
  let run = "";
  const flush = () => {
    if (run) next = insert(next, run);
    run = "";
  };
  for (const char of input.replace(/\r\n?/g, "\n")) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "\x7f" || char === "\b") {
      flush();
      next = backspace(next);
    } else if (char === "\n" || char === "\t" || (code >= 0x20 && code !== 0x7f)) run += char;
  }
  flush();
  return next;
}

/**
 * Text with several line ends in one read (a paste the terminal did not bracket): like
 * `typeText`, but a line end right after a `\` continues the line as Enter would. A line end
 * never submits here: such a paste must not send itself.
 */
export function typeKeys(state: EditorState, input: string): EditorState {
  let next = state;
  input.split(/\r\n?|\n/).forEach((line, index) => {
    // Never a send: with no `\` before it, the line end is a new line (Shift+Enter's effect).
    if (index > 0) next = enter(next, next.text[next.cursor - 1] !== "\\").state;
    next = typeText(next, line);
  });
  return next;
}

export function backspace(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  return { text: state.text.slice(0, state.cursor - 1) + state.text.slice(state.cursor), cursor: state.cursor - 1 };
}

export function move(state: EditorState, by: number): EditorState {
  return { ...state, cursor: Math.min(state.text.length, Math.max(0, state.cursor + by)) };
}

/**
 * Enter: submit, unless the line ends with `\` (the `\` becomes a new line, as in Claude
 * Code) or `newline` is set (Shift+Enter, Alt+Enter).
 */
export function enter(state: EditorState, newline: boolean): { state: EditorState; submit?: string } {
  if (newline) return { state: insert(state, "\n") };
  if (state.cursor > 0 && state.text[state.cursor - 1] === "\\") {
    return { state: insert(backspace(state), "\n") };
  }
  return { state: EMPTY, submit: state.text };
}

/** Whether Up/Down should walk the history rather than move between lines: the prompt is one line. */
export function isOneLine(state: EditorState): boolean {
  return !state.text.includes("\n");
}

/**
 * Walks a list of past prompts with Up (older) and Down (newer); past the newest, the
 * prompt being typed before the walk comes back.
 */
export class HistoryWalk {
  #index: number | undefined;
  #draft = "";

  constructor(private readonly entries: () => readonly string[]) {}

  older(current: string): string | undefined {
    const entries = this.entries();
    if (entries.length === 0) return undefined;
    if (this.#index === undefined) {
      this.#draft = current;
      this.#index = entries.length;
    }
    if (this.#index === 0) return undefined;
    this.#index--;
    return entries[this.#index];
  }

  newer(): string | undefined {
    if (this.#index === undefined) return undefined;
    const entries = this.entries();
    this.#index++;
    if (this.#index >= entries.length) {
      this.#index = undefined;
      return this.#draft;
    }
    return entries[this.#index];
  }

  reset(): void {
    this.#index = undefined;
  }
}
