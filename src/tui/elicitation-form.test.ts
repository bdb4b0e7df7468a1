import { describe, expect, it } from "vitest";
import { acceptedResult, cycleChoice, formFields, initialText, parseField } from "./elicitation-form.js";

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", description: "as on the badge" },
    age: { type: "integer" },
    ratio: { type: "number", default: 0.5 },
    subscribe: { type: "boolean", default: true },
    colour: { type: "string", enum: ["red", "green"] },
    size: {
      type: "string",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "l", title: "Large" },
      ],
    },
    tags: { type: "array", items: { enum: ["a", "b"] } },
    odd: { type: "object" },
  },
  required: ["name", "colour"],
};

describe("an MCP server's form", () => {
  const fields = formFields(schema);
  const field = (key: string) => {
    const found = fields.find((candidate) => candidate.key === key);
    if (!found) throw new Error(`no field ${key}`);
    return found;
  };

  it("reads the fields of the requested schema in order, with titles, choices, defaults and what is required", () => {
    expect(fields.map((f) => [f.key, f.type, f.required])).toEqual([
      ["name", "string", true],
      ["age", "integer", false],
      ["ratio", "number", false],
      ["subscribe", "boolean", false],
      ["colour", "string", true],
      ["size", "string", false],
      ["tags", "array", false],
      ["odd", "string", false],
    ]);
    expect(field("name")).toMatchObject({ title: "Your name", description: "as on the badge", choices: undefined });
    expect(field("age").title).toBe("age");
    expect(field("colour").choices).toEqual(["red", "green"]);
    expect(field("size").choices).toEqual(["s", "l"]);
    expect(field("tags").choices).toEqual(["a", "b"]);
    expect(field("subscribe").choices).toEqual(["yes", "no"]);
    expect(formFields(undefined)).toEqual([]);
  });

  it("starts each input at the field's default, as the person would type it", () => {
    expect(initialText(field("ratio"))).toBe("0.5");
    expect(initialText(field("subscribe"))).toBe("yes");
    expect(initialText(field("name"))).toBe("");
  });

  it("checks and converts what is typed, refusing what the schema would", () => {
    expect(parseField(field("name"), "  Ada ")).toEqual({ ok: true, value: "Ada" });
    expect(parseField(field("name"), " ")).toEqual({ ok: false, error: "Your name is required" });
    expect(parseField(field("age"), "")).toEqual({ ok: true, value: undefined });
    expect(parseField(field("age"), "41")).toEqual({ ok: true, value: 41 });
    expect(parseField(field("age"), "4.5")).toMatchObject({ ok: false });
    expect(parseField(field("ratio"), "abc")).toMatchObject({ ok: false });
    expect(parseField(field("ratio"), "0.25")).toEqual({ ok: true, value: 0.25 });
    expect(parseField(field("subscribe"), "No")).toEqual({ ok: true, value: false });
    expect(parseField(field("subscribe"), "y")).toEqual({ ok: true, value: true });
    expect(parseField(field("subscribe"), "maybe")).toMatchObject({ ok: false });
    expect(parseField(field("colour"), "blue")).toEqual({ ok: false, error: "Choose one of red, green" });
    expect(parseField(field("tags"), "a, b,")).toEqual({ ok: true, value: ["a", "b"] });
    expect(parseField(field("tags"), "a, c")).toMatchObject({ ok: false });
  });

  it("cycles a field's choices with the arrows, from what is typed", () => {
    expect(cycleChoice(field("colour"), "", 1)).toBe("red");
    expect(cycleChoice(field("colour"), "", -1)).toBe("green");
    expect(cycleChoice(field("colour"), "green", 1)).toBe("red");
    expect(cycleChoice(field("subscribe"), "yes", 1)).toBe("no");
    expect(cycleChoice(field("name"), "Ada", 1)).toBe("Ada");
  });

  it("answers accept with the values given, the left-out ones omitted", () => {
    const values = new Map<string, string | number | boolean | string[] | undefined>([
      ["name", "Ada"],
      ["age", undefined],
      ["subscribe", false],
    ]);
    expect(acceptedResult(fields, values)).toEqual({ action: "accept", content: { name: "Ada", subscribe: false } });
  });
});
