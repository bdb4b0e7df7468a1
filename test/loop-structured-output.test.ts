// outputFormat (as in the Claude Agent SDK): the answer comes through the StructuredOutput
// tool, validated against the schema, and lands in the result's `structured_output`.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isGyreError } from "../src/errors/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const weather = {
  type: "object",
  properties: {
    city: { type: "string" },
    celsius: { type: "number" },
  },
  required: ["city", "celsius"],
  additionalProperties: false,
};

describe.each(FORMATS)("outputFormat over $name", (format) => {
  it("ends with the validated answer as structured_output; the model sees the schema", async () => {
    const script = {
      turns: [mockTurn.toolUse("StructuredOutput", { city: "Oslo", celsius: 4 }), mockTurn.text("unused")],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "Weather in Oslo?", {
        tools: [],
        outputFormat: { type: "json_schema", schema: weather },
      });
      const result = resultOf(messages);
      expect(result).toMatchObject({ subtype: "success", structured_output: { city: "Oslo", celsius: 4 } });
      expect(JSON.parse(result.result)).toEqual({ city: "Oslo", celsius: 4 });
      expect(server.requests).toHaveLength(1);
      const sent = JSON.stringify(server.requests[0]?.body);
      expect(sent).toContain("StructuredOutput");
      expect(sent).toContain("celsius");
    });
  });

  it("sends invalid output back as an error the model can fix, then accepts the fixed one", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("StructuredOutput", { city: "Oslo", celsius: "cold" }),
        mockTurn.toolUse("StructuredOutput", { city: "Oslo", celsius: -2 }),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "Weather?", {
        tools: [],
        outputFormat: { type: "json_schema", schema: weather },
      });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(resultOf(messages)).toMatchObject({
        subtype: "success",
        structured_output: { city: "Oslo", celsius: -2 },
      });
    });
  });

  it("reminds a model that answers in text, and gives up after maxStructuredOutputRetries", async () => {
    const reminded = {
      turns: [mockTurn.text("It is 4 degrees."), mockTurn.toolUse("StructuredOutput", { city: "Oslo", celsius: 4 })],
    };
    await withMock(reminded, async (server) => {
      const messages = await runQuery(server, format, "Weather?", {
        tools: [],
        outputFormat: { type: "json_schema", schema: weather },
      });
      expect(resultOf(messages).structured_output).toEqual({ city: "Oslo", celsius: 4 });
      expect(JSON.stringify(server.requests[1]?.body)).toContain("calling the StructuredOutput tool");
    });
    const stubborn = { turns: [mockTurn.text("4 degrees."), mockTurn.text("Still 4."), mockTurn.text("4!")] };
    await withMock(stubborn, async (server) => {
      const messages = await runQuery(server, format, "Weather?", {
        tools: [],
        outputFormat: { type: "json_schema", schema: weather },
        maxStructuredOutputRetries: 1,
      });
      expect(server.requests).toHaveLength(2);
      const result = resultOf(messages);
      expect(result).toMatchObject({ subtype: "error_max_structured_output_retries", is_error: true });
      expect(result.structured_output).toBeUndefined();
    });
  });
});

describe("outputFormat schemas", () => {
  const [format] = FORMATS;

  it("takes a zod object schema too", async () => {
    const schema = z.object({ answer: z.number().int() });
    await withMock({ turns: [mockTurn.toolUse("StructuredOutput", { answer: 42 })] }, async (server) => {
      const messages = await runQuery(server, format, "6*7?", {
        tools: [],
        outputFormat: { type: "json_schema", schema },
      });
      expect(resultOf(messages).structured_output).toEqual({ answer: 42 });
    });
  });

  it("refuses a schema that is not an object, before any request", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const error = await runQuery(server, format, "hi", {
        outputFormat: { type: "json_schema", schema: { type: "array", items: { type: "string" } } },
      }).catch((e: unknown) => e);
      expect(isGyreError(error) && error.code).toBe("config_error");
      expect(server.requests).toHaveLength(0);
    });
  });
});
