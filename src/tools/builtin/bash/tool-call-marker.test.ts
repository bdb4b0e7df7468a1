import { describe, expect, it } from "vitest";
import { environHasMarker, MARKER_VARIABLE, newMarker, withMarker } from "./tool-call-marker.js";

const environ = (entries: string[]) => Buffer.from(`${entries.join("\0")}\0`);

describe("tool call markers", () => {
  it("are unique, and added to the markers an environment already carries", () => {
    expect(newMarker()).not.toBe(newMarker());
    expect(withMarker({ PATH: "/bin" }, "m1")).toEqual({ PATH: "/bin", [MARKER_VARIABLE]: "m1" });
    expect(withMarker({ [MARKER_VARIABLE]: "outer" }, "inner")).toEqual({ [MARKER_VARIABLE]: "outer,inner" });
  });

  it("are found in an environment block only as a whole entry of the marker variable", () => {
    expect(environHasMarker(environ([`${MARKER_VARIABLE}=abc`, "PATH=/bin"]), "abc")).toBe(true);
    expect(environHasMarker(environ(["PATH=/bin", `${MARKER_VARIABLE}=outer,abc`]), "abc")).toBe(true);
    expect(environHasMarker(environ(["PATH=/bin", `${MARKER_VARIABLE}=outer,abc`]), "outer")).toBe(true);
    expect(environHasMarker(environ([`${MARKER_VARIABLE}=abcd`]), "abc")).toBe(false);
    expect(environHasMarker(environ([`X${MARKER_VARIABLE}=abc`]), "abc")).toBe(false);
    expect(environHasMarker(environ([`OTHER=${MARKER_VARIABLE}=abc`]), "abc")).toBe(false);
    expect(environHasMarker(Buffer.alloc(0), "abc")).toBe(false);
  });
});
