import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TuiStore } from "./tui-store.js";

const status = { model: "m", mode: "default" as const, costUsd: 0, contextPercent: undefined, busy: false };

describe("TuiStore", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("draws a burst of changes as one frame, and at most 30 frames a second however fast they come", () => {
    const store = new TuiStore("/p", { ...status });
    const frames: number[] = [];
    store.subscribe(() => frames.push(Date.now()));
    for (let i = 0; i < 100; i++) store.changed();
    vi.advanceTimersByTime(0);
    expect(frames).toHaveLength(1);
    // A second of changes every millisecond (a fast stream, Ctrl+O, a resize, all at once).
    for (let ms = 0; ms < 1000; ms++) {
      store.changed();
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(100);
    expect(frames.length).toBeGreaterThan(25);
    expect(frames.length).toBeLessThanOrEqual(32);
    for (let i = 1; i < frames.length; i++) expect((frames[i] ?? 0) - (frames[i - 1] ?? 0)).toBeGreaterThanOrEqual(33);
  });
});
