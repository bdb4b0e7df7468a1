import type { ElicitationResult } from "../mcp/index.js";

/** A value the person gives one field of an MCP server's form. */
export type FieldValue = string | number | boolean | string[];

/** One field of the form an MCP server asks to be filled, as the prompt shows and checks it. */
export interface FormField {
  key: string;
  title: string;
  description: string | undefined;
  type: "string" | "number" | "integer" | "boolean" | "array";
  /** The allowed values (an enum, or a boolean's yes/no), cycled with Up/Down. */
  choices: string[] | undefined;
  default: FieldValue | undefined;
  required: boolean;
}

/** What one typed answer to a field is: its value (undefined: left out), or why it is refused. */
export type FieldAnswer = { ok: true; value: FieldValue | undefined } | { ok: false; error: string };

type SchemaField = {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
  default?: unknown;
};

const TYPES = new Set<FormField["type"]>(["string", "number", "integer", "boolean", "array"]);

/**
 * The fields of a requested schema (MCP's flat object of strings, numbers, booleans, enums
 * and enum arrays), in the schema's order. A field of another type is asked as text; the
 * run still checks the answer against the schema before the server gets it.
 */
export function formFields(schema: Record<string, unknown> | undefined): FormField[] {
  const properties = (schema?.properties ?? {}) as Record<string, SchemaField>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as unknown[]) : []);
  return Object.entries(properties).map(([key, field]) => {
    const type = TYPES.has(field.type as FormField["type"]) ? (field.type as FormField["type"]) : "string";
    const values = type === "array" ? (field.items?.enum ?? field.items?.anyOf?.map((o) => o.const)) : field.enum;
    const choices = (values ?? field.oneOf?.map((option) => option.const))?.filter(
      (value): value is string => typeof value === "string",
    );
    return {
      key,
      title: typeof field.title === "string" ? field.title : key,
      description: typeof field.description === "string" ? field.description : undefined,
      type,
      choices: type === "boolean" ? ["yes", "no"] : choices && choices.length > 0 ? choices : undefined,
      default: isFieldValue(field.default) ? field.default : undefined,
      required: required.has(key),
    };
  });
}

/** The text a field's input starts with: its default, as the person would type it. */
export function initialText(field: FormField): string {
  const value = field.default;
  if (value === undefined) return "";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** Checks and converts the text typed for `field`; an empty optional field is left out. */
export function parseField(field: FormField, text: string): FieldAnswer {
  const typed = text.trim();
  if (typed === "") return field.required ? { ok: false, error: `${field.title} is required` } : ok(undefined);
  switch (field.type) {
    case "boolean":
      if (/^(y|yes|true)$/i.test(typed)) return ok(true);
      if (/^(n|no|false)$/i.test(typed)) return ok(false);
      return { ok: false, error: "Answer yes or no" };
    case "number":
    case "integer": {
      const number = Number(typed);
      if (!Number.isFinite(number)) return { ok: false, error: `${typed} is not a number` };
      if (field.type === "integer" && !Number.isInteger(number))
        return { ok: false, error: `${typed} is not a whole number` };
      return ok(number);
    }
    case "array": {
      const items = typed
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "");
      const wrong = field.choices && items.find((item) => !field.choices?.includes(item));
      if (wrong) return { ok: false, error: `${wrong} is not one of ${field.choices?.join(", ")}` };
      return ok(items);
    }
    default:
      if (field.choices && !field.choices.includes(typed))
        return { ok: false, error: `Choose one of ${field.choices.join(", ")}` };
      return ok(typed);
  }
}

/** Up/Down on a field with choices: the next (or previous) one after what is typed. */
export function cycleChoice(field: FormField, text: string, step: 1 | -1): string {
  const choices = field.choices;
  if (!choices || field.type === "array") return text;
  const index = choices.indexOf(text.trim());
  const next = index === -1 ? (step === 1 ? 0 : choices.length - 1) : (index + step + choices.length) % choices.length;
  return choices[next] ?? text;
}

/** The accepted answer: every field's value, the left-out ones omitted. */
export function acceptedResult(
  fields: readonly FormField[],
  values: ReadonlyMap<string, FieldValue | undefined>,
): ElicitationResult {
  const content: Record<string, FieldValue> = {};
  for (const field of fields) {
    const value = values.get(field.key);
    if (value !== undefined) content[field.key] = value;
  }
  return { action: "accept", content };
}

function ok(value: FieldValue | undefined): FieldAnswer {
  return { ok: true, value };
}

function isFieldValue(value: unknown): value is FieldValue {
  return (
    ["string", "number", "boolean"].includes(typeof value) ||
    (Array.isArray(value) && value.every((item) => typeof item === "string"))
  );
}
