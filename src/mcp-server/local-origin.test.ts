import { describe, expect, it } from "vitest";
import { isLocalRequest } from "./local-origin.js";

describe("isLocalRequest", () => {
  it("takes a local client: a loopback Host with this port, and no Origin or a loopback one", () => {
    expect(isLocalRequest({ host: "127.0.0.1:4000" }, 4000)).toBe(true);
    expect(isLocalRequest({ host: "localhost:4000" }, 4000)).toBe(true);
    expect(isLocalRequest({ host: "LOCALHOST:4000", origin: "http://localhost:4000" }, 4000)).toBe(true);
  });

  it("refuses a DNS-rebound name, another port, or no Host", () => {
    expect(isLocalRequest({ host: "attacker.example:4000" }, 4000)).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1.attacker.example:4000" }, 4000)).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1:4001" }, 4000)).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1" }, 4000)).toBe(false);
    expect(isLocalRequest({}, 4000)).toBe(false);
  });

  it("refuses a web page's request, even to the right Host", () => {
    expect(isLocalRequest({ host: "127.0.0.1:4000", origin: "https://evil.example" }, 4000)).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1:4000", origin: "http://127.0.0.1:4001" }, 4000)).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1:4000", origin: "null" }, 4000)).toBe(false);
  });
});
