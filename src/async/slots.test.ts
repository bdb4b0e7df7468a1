import { describe, expect, it } from "vitest";
import { Slots } from "./slots.js";

const quiet = () => new AbortController().signal;

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("Slots", () => {
  it("lets `size` holders in at once; the next waits until one gives its slot back, in arrival order", async () => {
    const slots = new Slots(2);
    await slots.take(quiet());
    await slots.take(quiet());
    const order: string[] = [];
    const third = slots.take(quiet()).then(() => order.push("third"));
    const fourth = slots.take(quiet()).then(() => order.push("fourth"));
    expect(await settled(third)).toBe(false);
    slots.give();
    await third;
    expect(await settled(fourth)).toBe(false);
    slots.give();
    await fourth;
    expect(order).toEqual(["third", "fourth"]);
  });

  it("a waiter whose signal aborts leaves the line: the slot given next goes to the one behind it", async () => {
    const slots = new Slots(1);
    await slots.take(quiet());
    const controller = new AbortController();
    const aborted = slots.take(controller.signal);
    const behind = slots.take(quiet());
    controller.abort(new Error("stop"));
    await expect(aborted).rejects.toThrow("stop");
    slots.give();
    await behind;
    // One holder (behind) and nobody waiting: a give frees the slot for the next taker at once.
    slots.give();
    await expect(settled(slots.take(quiet()))).resolves.toBe(true);
  });

  it("a signal aborted before the wait is refused at once and takes no place in the line", async () => {
    const slots = new Slots(1);
    await slots.take(quiet());
    const controller = new AbortController();
    controller.abort(new Error("already"));
    await expect(slots.take(controller.signal)).rejects.toThrow("already");
    slots.give();
    await expect(settled(slots.take(quiet()))).resolves.toBe(true);
  });
});
