/** A complete escape sequence at the start of the text: CSI, OSC (BEL or ST ended), or a two-byte escape. */
const ESCAPE_AT_START = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/;
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
/** An escape this long without ending is garbage, not a sequence still arriving. */
const MAX_PENDING_ESCAPE = 256;

/**
 * Turns terminal output into plain text for the model: drops colour and cursor escape
 * sequences and turns CRLF into LF. Sequences split across chunks are held back until
 * they complete, so no half sequence leaks through.
 */
export class TerminalTextCleaner {
  #pending = "";

  push(chunk: string): string {
    let text = this.#pending + chunk;
    this.#pending = "";
    const cut = this.#incompleteTailStart(text);
    if (cut < text.length) {
      this.#pending = text.slice(cut);
      text = text.slice(0, cut);
    }
    return clean(text);
  }

  /** Whatever was held back, once the stream ended. */
  flush(): string {
    const rest = this.#pending;
    this.#pending = "";
    return clean(rest);
  }

  #incompleteTailStart(text: string): number {
    if (text.endsWith("\r")) return text.length - 1;
    const escapeStart = text.lastIndexOf("\x1b");
    if (escapeStart === -1 || text.length - escapeStart > MAX_PENDING_ESCAPE) return text.length;
    return ESCAPE_AT_START.test(text.slice(escapeStart)) ? text.length : escapeStart;
  }
}

function clean(text: string): string {
  return text.replace(ESCAPES, "").replace(/\r\n/g, "\n");
}
