/** The JSON a freeform call's arguments start with, up to the opening quote of its `input`. */
const OPENING = /^\s*\{\s*"input"\s*:\s*"/;
/** Characters after which arguments that have not reached the `input` text are taken for another shape. */
const OPENING_MAX = 64;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Reads a freeform call's `input` text out of its arguments (`{"input": "…"}`) while they
 * stream, so the client gets `custom_tool_call_input` deltas as the model writes. Arguments of
 * another shape give no deltas: the call's whole input still comes when it ends.
 */
export class FreeformInputReader {
  #pending = "";
  #state: "opening" | "text" | "done" = "opening";
  /** A high surrogate waiting for its pair: a delta never ends inside a character. */
  #high = "";

  /** The input text that `json` (the next piece of the arguments) completes. */
  push(json: string): string {
    if (this.#state === "done") return "";
    this.#pending += json;
    if (this.#state === "opening") {
      const match = OPENING.exec(this.#pending);
      if (!match) {
        // Another shape (another key first): no deltas for this call.
        if (this.#pending.length > OPENING_MAX) this.#state = "done";
        return "";
      }
      this.#pending = this.#pending.slice(match[0].length);
      this.#state = "text";
    }
    return this.#decode();
  }

  #decode(): string {
    let out = "";
    let index = 0;
    const text = this.#pending;
    while (index < text.length) {
      const char = text[index] as string;
      if (char === '"') {
        this.#state = "done";
        index = text.length;
        break;
      }
      if (char !== "\\") {
        out += char;
        index++;
        continue;
      }
      const code = text[index + 1];
      if (code === undefined) break;
      if (code === "u") {
        const hex = text.slice(index + 2, index + 6);
        if (hex.length < 4) break;
        out += String.fromCharCode(Number.parseInt(hex, 16));
        index += 6;
      } else {
        out += ESCAPES[code] ?? code;
        index += 2;
      }
    }
    this.#pending = text.slice(index);
    return this.#whole(out);
  }

  /** `text` less a trailing high surrogate, kept for the next delta; with the one kept before. */
  #whole(text: string): string {
    const joined = this.#high + text;
    const last = joined.charCodeAt(joined.length - 1);
    const split = last >= 0xd800 && last <= 0xdbff && this.#state !== "done";
    this.#high = split ? joined.slice(-1) : "";
    return split ? joined.slice(0, -1) : joined;
  }
}
