import { describe, expect, it } from "vitest";
import { EventLog } from "./event-log.js";
import type { NumberedEvent } from "./stream-event.js";

describe("EventLog", () => {
  it("numbers events from 0, replays after starting_after, then follows until the end", () => {
    const log = new EventLog();
    log.append({ type: "a" });
    log.append({ type: "b" });
    const seen: Array<NumberedEvent | undefined> = [];
    log.follow(0, (event) => seen.push(event));
    expect(seen).toEqual([{ type: "b", sequence_number: 1 }]);
    log.append({ type: "c" });
    log.end();
    log.append({ type: "late" }); // nothing after the end
    expect(seen).toEqual([{ type: "b", sequence_number: 1 }, { type: "c", sequence_number: 2 }, undefined]);
    expect(log.events.map((event) => event.type)).toEqual(["a", "b", "c"]);
  });

  it("lets a follower stop, and answers a follower of an ended log at once", () => {
    const log = new EventLog();
    const seen: string[] = [];
    const stop = log.follow(-1, (event) => seen.push(event?.type ?? "end"));
    log.append({ type: "a" });
    stop();
    log.append({ type: "b" });
    log.end();
    expect(seen).toEqual(["a"]);
    const late: string[] = [];
    log.follow(5, (event) => late.push(event?.type ?? "end"));
    expect(late).toEqual(["end"]);
  });
});
