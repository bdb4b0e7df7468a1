import { describe, expect, it } from "vitest";
import { ABORTED, untilAborted } from "./until-aborted.js";

describe("untilAborted", () => {
  it("passes the promise's value or rejection through when the signal stays quiet", async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error("no")), signal)).rejects.toThrow("no");
  });

  it("resolves to ABORTED as soon as the signal aborts, not waiting for work that ignores it", async () => {
    const controller = new AbortController();
    let rejectLater: (error: Error) => void = () => {};
    const never = new Promise<number>((_, reject) => (rejectLater = reject));
    const waiting = untilAborted(never, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBe(ABORTED);
    // The abandoned promise's later rejection is swallowed (vitest fails on unhandled ones).
    rejectLater(new Error("late"));
  });

  it("resolves to ABORTED at once for an already aborted signal", async () => {
    await expect(untilAborted(Promise.resolve(1), AbortSignal.abort())).resolves.toBe(ABORTED);
  });
});
