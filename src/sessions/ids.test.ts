import { describe, expect, it } from "vitest";
import { createIdGenerator } from "./ids.js";

describe("createIdGenerator", () => {
  it("makes prefixed ULID-shaped ids", () => {
    const id = createIdGenerator()("msg");
    expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("orders ids by time, and strictly within one millisecond", () => {
    let time = 1_700_000_000_000;
    const newId = createIdGenerator({ now: () => time });
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) {
      ids.push(newId("prt"));
      if (i % 100 === 0) time += 1;
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("stays increasing when the clock steps back", () => {
    let time = 2_000_000;
    const newId = createIdGenerator({ now: () => time });
    const first = newId("msg");
    time -= 1000;
    const second = newId("msg");
    expect(second > first).toBe(true);
  });

  it("moves to the next millisecond when the random part is used up", () => {
    const newId = createIdGenerator({ now: () => 5, random: (size) => new Uint8Array(size).fill(31) });
    const first = newId("ses");
    const second = newId("ses");
    expect(first.endsWith("Z".repeat(16))).toBe(true);
    expect(second > first).toBe(true);
    expect(second.slice(4, 14)).toBe("0000000006");
  });

  it("draws fresh random digits for every millisecond, across refills of the random pool", () => {
    let time = 1_700_000_000_000;
    const newId = createIdGenerator({ now: () => time++ });
    // 16 bytes per millisecond: 1000 ids use the 4096-byte pool up several times over.
    const randomParts = Array.from({ length: 1000 }, () => newId("msg").slice(14));
    expect(new Set(randomParts).size).toBe(randomParts.length);
  });

  it("encodes the time in the first ten digits", () => {
    const zero = createIdGenerator({ now: () => 0, random: (size) => new Uint8Array(size) })("msg");
    expect(zero).toBe(`msg_${"0".repeat(26)}`);
    const later = createIdGenerator({ now: () => 32, random: (size) => new Uint8Array(size) })("msg");
    expect(later.slice(4, 14)).toBe("0000000010");
  });
});
