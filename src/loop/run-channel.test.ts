import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { RunChannel } from "./run-channel.js";

/** A message that says where it came from; the merge never looks inside. */
const note = (text: string) => ({ type: "system", subtype: "note", text }) as unknown as SDKMessage;
const textOf = (message: SDKMessage) => (message as unknown as { text: string }).text;

/** A gate a test opens when it chooses. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("RunChannel.merge", () => {
  it("passes pushed messages on while the source waits, and everything pushed before its end precedes it", async () => {
    const channel = new RunChannel();
    const step = gate();
    async function* source(): AsyncGenerator<SDKMessage, string> {
      yield note("s1");
      await step.opened; // a long model call, say
      channel.push(note("c2"));
      yield note("s2");
      channel.push(note("c3"));
      return "done";
    }
    const merged = channel.merge(source());
    const seen: string[] = [];
    expect(textOf((await merged.next()).value as SDKMessage)).toBe("s1");
    const waiting = merged.next();
    channel.push(note("c1")); // arrives while the source is blocked
    seen.push(textOf((await waiting).value as SDKMessage));
    step.open();
    for (;;) {
      const next = await merged.next();
      if (next.done) {
        expect(next.value).toBe("done");
        break;
      }
      seen.push(textOf(next.value));
    }
    expect(seen).toEqual(["c1", "c2", "s2", "c3"]);
  });

  it("passes a source's error on after the messages pushed before it", async () => {
    const channel = new RunChannel();
    async function* source(): AsyncGenerator<SDKMessage, void> {
      channel.push(note("c1"));
      await Promise.reject(new Error("boom"));
      yield note("never seen");
    }
    const merged = channel.merge(source());
    expect(textOf((await merged.next()).value as SDKMessage)).toBe("c1");
    await expect(merged.next()).rejects.toThrow("boom");
  });

  it("closes the source when the caller stops early, once its pending step has settled", async () => {
    const channel = new RunChannel();
    const step = gate();
    const closing = gate();
    let closed = false;
    async function* source(): AsyncGenerator<SDKMessage, void> {
      try {
        await step.opened;
        yield note("never seen");
      } finally {
        closed = true;
        closing.open();
      }
    }
    const merged = channel.merge(source());
    const first = merged.next();
    channel.push(note("c1"));
    expect(textOf((await first).value as SDKMessage)).toBe("c1");
    await merged.return(undefined);
    expect(closed).toBe(false); // its step is still running
    step.open();
    await closing.opened; // never settles if the source is left open
    expect(closed).toBe(true);
  });
});
