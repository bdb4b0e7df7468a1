import { describe, expect, it } from "vitest";
import type { SDKResultMessage } from "../protocol/index.js";
import { EXIT_REQUIRES_ACTION, exitCodeOf } from "./run-command.js";

const result = (fields: Partial<SDKResultMessage>) => ({ type: "result", ...fields }) as SDKResultMessage;

describe("exitCodeOf", () => {
  it("exits 128 + the signal's number when a signal aborted the run", () => {
    const aborted = result({ is_error: true, terminal_reason: "aborted" });
    expect(exitCodeOf(aborted, "SIGINT")).toBe(130);
    expect(exitCodeOf(aborted, "SIGTERM")).toBe(143);
    expect(exitCodeOf(aborted, undefined)).toBe(1);
  });

  it("exits 0, 1 or 3 otherwise", () => {
    expect(exitCodeOf(result({ is_error: false, terminal_reason: "completed" }), undefined)).toBe(0);
    expect(exitCodeOf(result({ is_error: true, terminal_reason: "interrupted" }), "SIGINT")).toBe(1);
    expect(exitCodeOf(result({ is_error: false, terminal_reason: "requires_action" }), undefined)).toBe(
      EXIT_REQUIRES_ACTION,
    );
  });
});
