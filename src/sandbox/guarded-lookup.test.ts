import { describe, expect, it } from "vitest";
import { guardLookup, isInternal } from "./guarded-lookup.js";

describe("guardedLookup", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["169.254.169.254", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["fe80::1", true],
    ["0.0.0.0", true],
    ["93.184.216.34", false],
    ["10.0.0.5", false],
    ["2606:2800:220:1:248:1893:25c8:1946", false],
  ])("%s internal: %s", (address, internal) => {
    expect(isInternal(address)).toBe(internal);
  });

  it("refuses a name whose answer is loopback or link-local, unless the name is localhost", async () => {
    const answers: Record<string, string> = {
      "metadata.example.com": "169.254.169.254",
      localhost: "127.0.0.1",
      "api.example.com": "93.184.216.34",
    };
    const lookup = guardLookup((name, _options, done) => done(null, [{ address: answers[name]!, family: 4 }]));
    const resolve = (name: string) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
        lookup(name, {}, (error, address) => done({ error, address })),
      );
    expect((await resolve("metadata.example.com")).error?.code).toBe("EGYRESANDBOX");
    expect(await resolve("localhost")).toEqual({ error: null, address: "127.0.0.1" });
    expect(await resolve("api.example.com")).toEqual({ error: null, address: "93.184.216.34" });
  });
});
