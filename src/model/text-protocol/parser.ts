import { Segment, type SegmentEvent } from "./segment.js";

/**
 * What the parser finds in the model's text, in order. `tool` carries the text between
 * `<tool>` and `</tool>` as written; `closed` is false when the text ended inside the block.
 */
export type ParsedEvent = SegmentEvent | { type: "tool"; body: string; closed: boolean };

const TOOL_OPEN = "<tool>";
const TOOL_CLOSE = "</tool>";
/** `<think>` is what many open models (Qwen, DeepSeek) write natively; both count as thinking. */
const THINKING_TAGS: Record<string, string> = { "<thinking>": "</thinking>", "<think>": "</think>" };
/** A model that writes its own `<tool_result>` after a call is imagining the answer. */
const RESULT_OPEN = "<tool_result";

type Mode =
  | { kind: "text" }
  | { kind: "thinking"; close: string }
  | { kind: "tool" }
  /** After an invented `<tool_result`: everything else is dropped. */
  | { kind: "ignore" };

/**
 * Incremental parser of the text tool protocol. Feed it the model's text in pieces of any
 * size with {@link push}, then call {@link end}; the events do not depend on where the
 * pieces were split. Text outside blocks becomes text, `<thinking>` (or `<think>`) sections
 * become reasoning, and every `<tool>` block becomes one `tool` event.
 *
 * A `</tool>` inside a JSON string of the block does not close it (a tool argument may
 * well contain that text). If the block never closes that way — say a quote was left
 * open — the first `</tool>` closes it at the end of the text and parsing resumes after it.
 */
export class TextProtocolParser {
  #mode: Mode = { kind: "text" };
  /** Text not yet classified (only ever a possible tag prefix, between pushes). */
  #pending = "";
  #text = new Segment("text");
  #thinking = new Segment("reasoning");
  /** Body of the open `<tool>` block, and how far it has been scanned for `</tool>`. */
  #block = "";
  #scanned = 0;
  #inString = false;
  #escaped = false;
  #sawTool = false;

  push(delta: string): ParsedEvent[] {
    const out: ParsedEvent[] = [];
    this.#pending += delta;
    this.#drain(out, false);
    return out;
  }

  /** The text is complete: flush what was held back and report an unclosed block. */
  end(): ParsedEvent[] {
    const out: ParsedEvent[] = [];
    this.#drain(out, true);
    this.#finish(out);
    return out;
  }

  #drain(out: ParsedEvent[], final: boolean): void {
    let progressed = true;
    while (progressed && this.#pending.length > 0) {
      switch (this.#mode.kind) {
        case "text":
          progressed = this.#drainText(out, final);
          break;
        case "thinking":
          progressed = this.#drainThinking(this.#mode.close, out, final);
          break;
        case "tool":
          progressed = this.#drainTool(out);
          break;
        case "ignore":
          this.#pending = "";
          progressed = false;
          break;
      }
    }
  }

  #drainText(out: ParsedEvent[], final: boolean): boolean {
    const tags = [TOOL_OPEN, ...Object.keys(THINKING_TAGS), ...(this.#sawTool ? [RESULT_OPEN] : [])];
    const found = findFirst(this.#pending, tags);
    if (!found) {
      const keep = final ? 0 : heldBack(this.#pending, tags);
      this.#emitText(this.#pending.slice(0, this.#pending.length - keep), out);
      this.#pending = this.#pending.slice(this.#pending.length - keep);
      return false;
    }
    this.#emitText(this.#pending.slice(0, found.index), out);
    this.#endText(out);
    this.#pending = this.#pending.slice(found.index + found.tag.length);
    if (found.tag === TOOL_OPEN) {
      this.#mode = { kind: "tool" };
      this.#sawTool = true;
    } else if (found.tag === RESULT_OPEN) {
      this.#mode = { kind: "ignore" };
    } else {
      this.#mode = { kind: "thinking", close: THINKING_TAGS[found.tag] ?? "" };
    }
    return true;
  }

  #drainThinking(close: string, out: ParsedEvent[], final: boolean): boolean {
    const index = this.#pending.indexOf(close);
    if (index < 0) {
      const keep = final ? 0 : heldBack(this.#pending, [close]);
      this.#emitThinking(this.#pending.slice(0, this.#pending.length - keep), out);
      this.#pending = this.#pending.slice(this.#pending.length - keep);
      return false;
    }
    this.#emitThinking(this.#pending.slice(0, index), out);
    this.#endThinking(out);
    this.#pending = this.#pending.slice(index + close.length);
    this.#mode = { kind: "text" };
    return true;
  }

  #drainTool(out: ParsedEvent[]): boolean {
    this.#block += this.#pending;
    this.#pending = "";
    const close = this.#scanForClose();
    if (close < 0) return false;
    this.#closeBlock(close, out);
    return true;
  }

  /** Scan the block for a `</tool>` outside JSON strings; -1 when none (yet). */
  #scanForClose(): number {
    const block = this.#block;
    for (let i = this.#scanned; i < block.length; i++) {
      const char = block[i];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (char === "\\") this.#escaped = true;
        else if (char === '"') this.#inString = false;
      } else if (char === '"') {
        this.#inString = true;
      } else if (char === "<") {
        const rest = block.slice(i, i + TOOL_CLOSE.length);
        if (rest === TOOL_CLOSE) return i;
        // Possibly the start of `</tool>`: look again when more text arrives.
        if (TOOL_CLOSE.startsWith(rest)) {
          this.#scanned = i;
          return -1;
        }
      }
    }
    this.#scanned = block.length;
    return -1;
  }

  #closeBlock(index: number, out: ParsedEvent[]): void {
    out.push({ type: "tool", body: this.#block.slice(0, index), closed: true });
    this.#pending = this.#block.slice(index + TOOL_CLOSE.length) + this.#pending;
    this.#block = "";
    this.#scanned = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#mode = { kind: "text" };
  }

  #finish(out: ParsedEvent[]): void {
    if (this.#mode.kind === "tool") {
      const close = this.#block.indexOf(TOOL_CLOSE);
      if (close >= 0) {
        this.#closeBlock(close, out);
        this.#drain(out, true);
        this.#finish(out);
        return;
      }
      out.push({ type: "tool", body: this.#block, closed: false });
      this.#block = "";
    }
    this.#endText(out);
    this.#endThinking(out);
  }

  #emitText(text: string, out: ParsedEvent[]): void {
    if (text.length > 0) this.#text.write(text, out);
  }

  #endText(out: ParsedEvent[]): void {
    this.#text.end(out);
  }

  #emitThinking(text: string, out: ParsedEvent[]): void {
    if (text.length > 0) this.#thinking.write(text, out);
  }

  #endThinking(out: ParsedEvent[]): void {
    this.#thinking.end(out);
  }
}

function findFirst(text: string, tags: readonly string[]): { index: number; tag: string } | undefined {
  let best: { index: number; tag: string } | undefined;
  for (const tag of tags) {
    const index = text.indexOf(tag);
    if (index >= 0 && (!best || index < best.index)) best = { index, tag };
  }
  return best;
}

/** Length of the longest suffix of `text` that could be the start of one of `tags`. */
function heldBack(text: string, tags: readonly string[]): number {
  const start = text.lastIndexOf("<");
  if (start < 0) return 0;
  const tail = text.slice(start);
  return tags.some((tag) => tag.startsWith(tail) && tail.length < tag.length) ? tail.length : 0;
}
