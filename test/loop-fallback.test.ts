// fallbackModel: a model call that fails for good (retries included) moves the run to the
// fallback model for the rest of the run, said in a `system`/`model_fallback` message.
import { describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import type { SDKMessage } from "../src/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, requestedModel, resultOf, runQuery, withMock } from "./helpers.js";

const FALLBACK: Record<string, string> = {
  anthropic: "anthropic/claude-haiku-4-5",
  "openai-responses": "openai/gpt-5-mini",
  "openai-chat": "openai-chat/gpt-4o-mini",
};

describe.each(FORMATS)("fallbackModel over $name", (format) => {
  const fallback = FALLBACK[format.name] as string;

  it("switches to the fallback after the retries are used up, for the rest of the run", async () => {
    const overloaded = { faults: [mockFault.overloaded(), mockFault.overloaded()] };
    const script = {
      mode: "sequential" as const,
      turns: [mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }, overloaded), mockTurn.text("42")],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "6*7?", {
        tools: [calculator],
        maxRetries: 1,
        fallbackModel: fallback,
      });
      const primaryId = format.model.split("/")[1];
      const fallbackId = fallback.split("/")[1];
      expect(server.requests.map((request) => requestedModel(request.body))).toEqual([
        primaryId,
        primaryId,
        fallbackId,
        fallbackId,
      ]);
      const switched = messages.filter(
        (m): m is Extract<SDKMessage, { subtype: "model_fallback" }> =>
          m.type === "system" && m.subtype === "model_fallback",
      );
      expect(switched).toHaveLength(1);
      expect(switched[0]).toMatchObject({ from_model: format.model, to_model: fallback });
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "42" });
      expect(Object.keys(resultOf(messages).modelUsage)).toEqual([fallback]);
    });
  });

  it("ends with the fallback's error when it fails too, without switching twice", async () => {
    const failing = { faults: [mockFault.http(500), mockFault.http(500), mockFault.http(500), mockFault.http(500)] };
    await withMock({ mode: "sequential", turns: [mockTurn.text("never", failing)] }, async (server) => {
      const messages = await runQuery(server, format, "hi", { maxRetries: 1, fallbackModel: fallback });
      expect(server.requests).toHaveLength(4);
      expect(messages.filter((m) => m.type === "system" && m.subtype === "model_fallback")).toHaveLength(1);
      expect(resultOf(messages).subtype).toBe("error_during_execution");
    });
  });
});

describe("fallbackModel that cannot be resolved", () => {
  it("fails before any request", async () => {
    const [format] = FORMATS;
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const error = await runQuery(server, format, "hi", { fallbackModel: "nowhere/model" }).catch((e: unknown) => e);
      expect(isGyreError(error) && error.code).toBe("unknown_provider");
      expect(server.requests).toHaveLength(0);
    });
  });
});
