import { describe, expect, it } from "vitest";
import type { SDKResultMessage, TerminalReason } from "../protocol/index.js";
import type { ResponseObject } from "./response-object.js";
import { endResponse } from "./response-status.js";

function resultEnding(terminal_reason: TerminalReason): SDKResultMessage {
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    terminal_reason,
    errors: ["stopped"],
    usage: { input_tokens: 1, output_tokens: 1 },
    total_cost_usd: 0,
  } as unknown as SDKResultMessage;
}

describe("endResponse", () => {
  it.each(["interrupted", "aborted"] as const)("ends a run that ended %s cancelled", (reason) => {
    const response = { status: "in_progress" } as unknown as ResponseObject;
    endResponse(response, resultEnding(reason), false, undefined);
    expect(response.status).toBe("cancelled");
  });
});
