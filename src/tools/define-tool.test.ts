import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isGyreError } from "../errors/index.js";
import { defineTool } from "./define-tool.js";

const base = { description: "Echo.", inputSchema: z.object({ text: z.string() }), execute: () => "ok" };

describe("defineTool", () => {
  it("rejects a name the providers would refuse with a config_error", () => {
    let thrown: unknown;
    try {
      defineTool({ ...base, name: "has space" });
    } catch (error) {
      thrown = error;
    }
    expect(isGyreError(thrown, "config_error")).toBe(true);
  });

  it("makes readOnly a read-only side effect and wraps a sync execute", async () => {
    const tool = defineTool({ ...base, name: "echo", readOnly: true });
    expect(tool.sideEffect).toBe("read-only");
    expect(await tool.execute({ text: "x" }, undefined as never)).toBe("ok");
  });
});
