/** Text and reasoning as the parser reports them: a run opens, grows, closes. */
export type SegmentEvent =
  | { type: "text-start" }
  | { type: "text-delta"; text: string }
  | { type: "text-end" }
  | { type: "reasoning-start" }
  | { type: "reasoning-delta"; text: string }
  | { type: "reasoning-end" };

/** Where a segment reports to: any list that accepts its events. */
export interface SegmentSink {
  push(event: SegmentEvent): unknown;
}

/**
 * One run of text or thinking between tags, written piece by piece. Leading and trailing
 * whitespace is dropped without waiting for the whole run: whitespace is held back until
 * something that is not whitespace follows it, so the newlines around tags never become
 * their own blocks and an all-whitespace run emits nothing at all.
 */
export class Segment {
  readonly #kind: "text" | "reasoning";
  #open = false;
  #pendingSpace = "";

  constructor(kind: "text" | "reasoning") {
    this.#kind = kind;
  }

  write(text: string, out: SegmentSink): void {
    let rest = text;
    if (!this.#open) {
      rest = rest.trimStart();
      if (rest.length === 0) return;
      this.#open = true;
      out.push({ type: `${this.#kind}-start` });
    }
    const content = rest.trimEnd();
    if (content.length === 0) {
      this.#pendingSpace += rest;
      return;
    }
    out.push({ type: `${this.#kind}-delta`, text: this.#pendingSpace + content });
    this.#pendingSpace = rest.slice(content.length);
  }

  end(out: SegmentSink): void {
    if (this.#open) out.push({ type: `${this.#kind}-end` });
    this.#open = false;
    this.#pendingSpace = "";
  }
}
