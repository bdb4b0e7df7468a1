/** Pastes longer than this many lines (or characters) show as a placeholder in the prompt box. */
const COLLAPSE_LINES = 3;
const COLLAPSE_CHARS = 800;

/** What the terminal sends around a paste once bracketed paste is on (Ink hands them over without ESC). */
export const PASTE_START = "[200~";
export const PASTE_END = "[201~";
/** Turns bracketed paste on and off (written to the terminal at start and exit). */
export const BRACKETED_PASTE_ON = "\x1b[?2004h";
export const BRACKETED_PASTE_OFF = "\x1b[?2004l";

/**
 * The pastes of the prompt being typed: a long one stands in the box as `[Pasted text #1 +N
 * lines]` and is put back in full when the prompt is sent, as Claude Code does.
 */
export class Pastes {
  readonly #texts = new Map<number, string>();
  #count = 0;

  /** What goes in the box for a paste: the text itself when short, else its placeholder. */
  add(pasted: string): string {
    const text = pasted.replace(/\r\n?/g, "\n");
    const lines = text.split("\n").length;
    if (lines <= COLLAPSE_LINES && text.length <= COLLAPSE_CHARS) return text;
    const id = ++this.#count;
    this.#texts.set(id, text);
    return lines > 1 ? `[Pasted text #${id} +${lines - 1} lines]` : `[Pasted text #${id} ${text.length} chars]`;
  }

  /** The prompt with each placeholder still in it replaced by its paste; the pastes are then forgotten. */
  expand(prompt: string): string {
    const expanded = prompt.replace(/\[Pasted text #(\d+) (?:\+\d+ lines|\d+ chars)\]/g, (placeholder, id: string) => {
      return this.#texts.get(Number(id)) ?? placeholder;
    });
    this.#texts.clear();
    return expanded;
  }
}
