import { describe, expect, it } from "vitest";
import { isAllowedHost, parseTarget } from "./host-patterns.js";

describe("isAllowedHost", () => {
  it.each([
    ["example.com", 443, ["example.com"], true],
    ["EXAMPLE.com.", 443, ["example.com"], true],
    ["api.example.com", 443, ["example.com"], false],
    ["api.example.com", 443, ["*.example.com"], true],
    ["example.com", 443, ["*.example.com"], false],
    ["evilexample.com", 443, ["*.example.com"], false],
    ["example.com.evil.net", 443, ["example.com"], false],
    ["127.0.0.1", 8080, ["127.0.0.1:8080"], true],
    ["127.0.0.1", 8081, ["127.0.0.1:8080"], false],
    ["::1", 80, ["[::1]:80"], true],
    ["localhost", 80, [], false],
  ] as const)("%s:%i against %j is %s", (host, port, patterns, allowed) => {
    expect(isAllowedHost(host, port, patterns)).toBe(allowed);
  });
});

describe("parseTarget", () => {
  it("reads CONNECT targets and absolute URLs, with default ports", () => {
    expect(parseTarget("example.com:443", 443)).toEqual({ host: "example.com", port: 443 });
    expect(parseTarget("http://example.com/x?y", 80)).toEqual({ host: "example.com", port: 80 });
    expect(parseTarget("https://example.com/", 80)).toEqual({ host: "example.com", port: 443 });
    expect(parseTarget("[::1]:8080", 443)).toEqual({ host: "::1", port: 8080 });
    expect(parseTarget("/relative", 80)).toBeUndefined();
  });
});
